-- retire: the reconciler gives back an idle processor, only if it is still idle and has been
-- idle since at most ARGV[3] (a processor that took a job since the plan was made stays).
-- KEYS[1] pool hash.  ARGV: prefix, processor id, latest idle-since (ms) that may be retired
-- Returns 1 when retired, 0 otherwise.
local pkey = key('proc', ARGV[2])
local s = redis.call('HMGET', pkey, 'state', 'since')
if s[1] ~= 'IDLE' or tonumber(s[2]) > tonumber(ARGV[3]) then return 0 end
retire(ARGV[2], now_ms())
return 1
