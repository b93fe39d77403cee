-- snapshot: one read of a pool for the API and the reconciler.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, then the fields to read of each processor and gang
--   (SnapshotReply.FIELDS: id first; a gang has members, a processor does not)
-- Returns {pool hash as a flat list, queue length, now, warmth hash as a flat list (KeySchema.warmth),
-- the idle time so far of the processors idle now (ms), proc 1, proc 2, ..., then, in a gang
-- pool, gang 1, ...}, or 'NOPOOL'. Each processor and gang is the values of those fields, in
-- their order (no field names: the reply of a pass over 10,000 processors is a third of the
-- size, and parsing it was most of the pass).
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   the whole hash
--   wp:{type}:procs                      R   every processor id
--   wp:{type}:proc:{id}                  R   each processor's FIELDS
--   wp:{type}:idle                       R   idle-since of each idle processor or gang
--   wp:{type}:queue                      R   its length (jobs queued before tenants)
--   wp:{type}:waiting                    R   the tenants with queued jobs
--   wp:{type}:tq:{tenant}                R   each one's length
--   wp:{type}:tenant:{tenant}            R   running, of each capped tenant with queued jobs (as runnable)
--   wp:{type}:warmth                     R   the whole hash
--   wp:{type}:demand                     R   the running sweeps' demand (as sweepDemand)
--   wp:{type}:gangs                      R   every gang id
--   wp:{type}:gang:{id}                  R   each gang's FIELDS
-- Publishes: nothing.
--- @include "tenants"
local FIELDS = {unpack(ARGV, 2)}
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local now = now_ms()
local idle_now = 0
local idle = redis.call('ZRANGE', IDLE, 0, -1, 'WITHSCORES')
for i = 2, #idle, 2 do idle_now = idle_now + math.max(0, now - tonumber(idle[i])) end
local pool = redis.call('HGETALL', POOL)
-- the sweeps' demand is kept apart from the pool hash (agents, which end sweeps, may only read that)
table.insert(pool, 'sweepDemand')
table.insert(pool, redis.call('GET', key('demand')) or '0')
-- the queued jobs their tenants' caps let start (sizing's demand; the queue length counts them all)
table.insert(pool, 'runnable')
table.insert(pool, tostring(runnable_total()))
local out = {pool, queued_total(), now, redis.call('HGETALL', key('warmth')),
  string.format('%d', idle_now)}
for _, pid in ipairs(redis.call('SMEMBERS', PROCS)) do
  local h = redis.call('HMGET', key('proc', pid), unpack(FIELDS))
  if h[1] then table.insert(out, h) end
end
for _, gid in ipairs(redis.call('SMEMBERS', GANGS)) do
  local h = redis.call('HMGET', key('gang', gid), unpack(FIELDS))
  if h[1] then table.insert(out, h) end
end
return out
