-- pool_put: creates or updates a pool (idempotent); a draining pool becomes active again.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, spec JSON, minIdle, maxSize, idleTimeoutMs, command JSON, env JSON, maxQueued,
--   gang ('1' for a gang pool, else '')
-- Returns 'created', 'updated', or 'GANGCHANGE' when the update would turn a pool into a gang
-- pool or back (its processors could not follow: delete it first).
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       RW  gang read; spec, minIdle, maxSize, idleTimeoutMs, command, env, maxQueued,
--                                            gang, state, updatedAt (createdAt) written
-- Publishes: nothing.
local now = now_ms()
local created = redis.call('EXISTS', POOL) == 0
if not created and (redis.call('HGET', POOL, 'gang') or '') ~= (ARGV[9] or '') then return 'GANGCHANGE' end
redis.call('HSET', POOL, 'spec', ARGV[2], 'minIdle', ARGV[3], 'maxSize', ARGV[4],
  'idleTimeoutMs', ARGV[5], 'command', ARGV[6], 'env', ARGV[7], 'maxQueued', ARGV[8], 'gang', ARGV[9] or '',
  'state', 'ACTIVE',
  'updatedAt', now)
if created then
  redis.call('HSET', POOL, 'createdAt', now)
  return 'created'
end
return 'updated'
