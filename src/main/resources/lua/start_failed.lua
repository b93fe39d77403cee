-- start_failed: an agent whose processor cannot serve (its persistent worker exited as soon as it
-- started) leaves why on its processor, still STARTING, then exits without registering; lost.lua,
-- run when the manager finds its process gone, makes that the pool's startError (GET /pools/{type},
-- and a waiter's 503) in place of its own "its process exited".
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, reason
-- Returns 1 when it was recorded, 0 when the processor is not STARTING (it registered, or Redis no
-- longer has it): nothing is changed then.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:proc:{id}                  RW  state read; startError written
-- Publishes: nothing.
local pkey = key('proc', ARGV[2])
if redis.call('HGET', pkey, 'state') ~= 'STARTING' then return 0 end
redis.call('HSET', pkey, 'startError', ARGV[3])
return 1
