-- pool_gc: removes a drained pool once its last processor is gone. The job index is
-- kept until its newest job would have expired, so GET /jobs still finds them.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, retention seconds
-- Returns 1 when the pool was removed, 0 otherwise.
if redis.call('HGET', POOL, 'state') ~= 'DRAINING' then return 0 end
if redis.call('SCARD', PROCS) > 0 then return 0 end
redis.call('DEL', POOL, IDLE, QUEUE, PROCS, GANGS, key('seq'), key('warmth'), key('demand'))
redis.call('EXPIRE', JOBS, tonumber(ARGV[2]))
return 1
