-- tenants: what GET /pools/{type} and a scrape of /q/metrics show of a pool's tenants (fair share,
-- lib/tenants.lua), usage decayed to now.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix
-- Returns {now, then per tenant by name {tenant, weight, maxRunning ('' for none), running, queued,
-- usage seconds (decayed), share, processor-seconds in all, its sweeps' trial-seconds, cold starts and idle seconds}},
-- or 'NOPOOL'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   whether it exists; fair (weights, maxRunning, half-life)
--   wp:{type}:tenants                    R   every tenant
--   wp:{type}:tenant:{tenant}            R   running, usage, usageAt, seconds, sweepMs, sweepColdStarts,
--                                            sweepIdleMs
--   wp:{type}:tq:{tenant}                R   each one's length
-- Publishes: nothing.
--- @include "tenants"
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local now = now_ms()
local out = {tostring(now)}
for _, row in ipairs(tenant_rows(now)) do table.insert(out, row) end
return out
