-- stats: what a scrape of /q/metrics reads of one pool: counts, not the pool's full snapshot
-- (one HGET per processor, no processor rows, none of the learned keep-alive's histograms).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, then the warmth hash's fields to read (StatsReply.FIELDS)
-- Returns {starting, idle, busy, draining, queue length, idle time so far of the processors idle
-- now (ms), the values of those fields in their order}, or 'NOPOOL'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   whether it exists
--   wp:{type}:procs                      R   every processor id
--   wp:{type}:proc:{id}                  R   each processor's state
--   wp:{type}:idle                       R   idle-since of each idle processor
--   wp:{type}:queue                      R   its length (jobs queued before tenants)
--   wp:{type}:waiting                    R   the tenants with queued jobs
--   wp:{type}:tq:{tenant}                R   each one's length
--   wp:{type}:warmth                     R   the fields ARGV[2..]
-- Publishes: nothing.
--- @include "tenants"
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local now = now_ms()
local counts = {STARTING = 0, IDLE = 0, BUSY = 0, DRAINING = 0}
for _, pid in ipairs(redis.call('SMEMBERS', PROCS)) do
  local s = redis.call('HGET', key('proc', pid), 'state')
  if s and counts[s] then counts[s] = counts[s] + 1 end
end
local idle_now = 0
local idle = redis.call('ZRANGE', IDLE, 0, -1, 'WITHSCORES')
for i = 2, #idle, 2 do idle_now = idle_now + math.max(0, now - tonumber(idle[i])) end
local out = {counts.STARTING, counts.IDLE, counts.BUSY, counts.DRAINING, queued_total(), string.format('%d', idle_now)}
if #ARGV > 1 then
  for _, v in ipairs(redis.call('HMGET', key('warmth'), unpack(ARGV, 2))) do table.insert(out, v or '0') end
end
return out
