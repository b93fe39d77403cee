-- spawn: records a processor the runtime is about to start, in state STARTING, unless the
-- pool is draining or already at maxSize (so two managers cannot overshoot it).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id
-- Returns 1 when recorded, 0 when refused.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, maxSize
--   wp:{type}:procs                      RW  counted; the processor ARGV[2] joins it
--   wp:{type}:proc:{id}                  W   the processor ARGV[2]: id, state STARTING, job, since, startedAt, hb
-- Publishes: nothing.
if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then return 0 end
if redis.call('SCARD', PROCS) >= tonumber(redis.call('HGET', POOL, 'maxSize')) then return 0 end
local now = now_ms()
redis.call('HSET', key('proc', ARGV[2]), 'id', ARGV[2], 'state', 'STARTING', 'job', '',
  'since', now, 'startedAt', now, 'hb', now)
redis.call('SADD', PROCS, ARGV[2])
return 1
