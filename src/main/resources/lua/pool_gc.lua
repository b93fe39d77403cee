-- pool_gc: removes a drained pool once its last processor is gone. The job and sweep indexes
-- are kept until their newest entries would have expired, so GET /jobs and /sweeps still find them.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, retention seconds
-- Returns 1 when the pool was removed, 0 otherwise.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       RW  state read; deleted
--   wp:{type}:procs                      RW  must be empty; deleted
--   wp:{type}:idle                       W   deleted
--   wp:{type}:queue                      W   deleted
--   wp:{type}:waiting                    W   deleted
--   wp:{type}:tenants                    RW  every tenant read; deleted
--   wp:{type}:tenant:{tenant}            W   deleted
--   wp:{type}:tq:{tenant}                W   deleted
--   wp:{type}:warmth                     W   deleted
--   wp:{type}:jobs                       W   expires a retention period (ARGV[2]) from now
--   wp:{type}:sweeps                     W   expires a retention period (ARGV[2]) from now (the sweeps, cancelled
--                                            with the pool, expire then too)
--   wp:{type}:seq                        W   deleted
--   wp:{type}:demand                     W   deleted
--   wp:{type}:drivers                    W   deleted
--   wp:{type}:gangs                      W   deleted
-- Publishes: nothing.
if redis.call('HGET', POOL, 'state') ~= 'DRAINING' then return 0 end
if redis.call('SCARD', PROCS) > 0 then return 0 end
for _, t in ipairs(redis.call('SMEMBERS', key('tenants'))) do redis.call('DEL', key('tenant', t), key('tq', t)) end
redis.call('DEL', POOL, IDLE, QUEUE, PROCS, GANGS, key('seq'), key('warmth'), key('demand'), key('drivers'), key('waiting'),
  key('tenants'))
redis.call('EXPIRE', JOBS, tonumber(ARGV[2]))
redis.call('EXPIRE', key('sweeps'), tonumber(ARGV[2]))
return 1
