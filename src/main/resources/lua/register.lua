-- register: an agent announces its processor. A new (or re-registering) processor takes
-- the best queued job or turns idle. A processor that is already known keeps its state.
-- KEYS[1] pool hash.  ARGV: prefix, processor id, os pid, host
-- Returns {'OK', state, job id or '', pool spec JSON} or 'NOPOOL' (the agent then exits).
if not redis.call('HGET', POOL, 'state') then return 'NOPOOL' end
local pid = ARGV[2]
local pkey = key('proc', pid)
local now = now_ms()
local state = redis.call('HGET', pkey, 'state')
redis.call('HSET', pkey, 'id', pid, 'pid', ARGV[3], 'host', ARGV[4], 'hb', now, 'registeredAt', now)
redis.call('SADD', PROCS, pid)
if state and state ~= 'STARTING' then
  return {'OK', state, redis.call('HGET', pkey, 'job') or '', redis.call('HGET', POOL, 'spec') or '{}'}
end
if not state then redis.call('HSET', pkey, 'startedAt', now) end
local jid = next_or_idle(pid, now)
return {'OK', redis.call('HGET', pkey, 'state'), jid, redis.call('HGET', POOL, 'spec') or '{}'}
