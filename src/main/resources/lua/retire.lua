-- retire: the reconciler gives back an idle processor (or, in a gang pool, an idle gang), only
-- if it is still idle and has been idle since at most ARGV[3] (one that took a job since the
-- plan was made stays).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor or gang id, latest idle-since (ms) that may be retired
-- Returns 1 when retired, 0 otherwise.
--- @include "gang"
local id = ARGV[2]
local h = key('proc', id)
if redis.call('EXISTS', key('gang', id)) == 1 then h = key('gang', id) end
local s = redis.call('HMGET', h, 'state', 'since')
if s[1] ~= 'IDLE' or tonumber(s[2]) > tonumber(ARGV[3]) then return 0 end
retire_id(id, now_ms())
return 1
