-- pool_delete: drains a pool. No new jobs; queued jobs are cancelled with a reason; idle
-- processors are retired now, busy ones when their job ends (next_or_idle sees DRAINING).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, reason, retention seconds
-- Returns {cancelled jobs, retired processors}, or 'NOPOOL'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:pool                       RW  state set DRAINING, updatedAt; trial: state (a running sweep is stopped)
--   wp:{type}:proc:{id}                  RW  each idle processor, and each idle gang's members (state read): retired;
--                                            trial: a stopped gang trial's members
--   wp:{type}:inbox:{id}                 W   'retire' to each retired processor (and busy gang members); trial: 'cancel
--                                            ...', 'job ...'
--   wp:{type}:idle                       RW  every entry read and retired; trial: a released trial takes the warmest
--   wp:{type}:tq:{tenant}                RW  every queued job read and ended; then deleted
--   wp:{type}:waiting                    RW  the tenants with queued jobs; deleted
--   wp:{type}:queue                      RW  jobs queued before tenants: read and ended; then deleted
--   wp:{type}:tenant:{tenant}            RW  trial: a stopped trial's tenant: running, usage, usageAt, seconds
--   wp:{type}:warmth                     RW  demand, ends by state, idle time of the retired; trial: a released trial's
--                                            arrival
--   wp:{type}:job:{jobId}                RW  each queued job: state, its end (CANCELLED, ARGV[2]); trial: the other
--                                            trials
--   wp:{type}:job:{jobId}:events         W   expires with each ended job (a trial's: when its sweep ends)
--   wp:{type}:gang:{id}                  RW  each idle gang: members read, retired; trial: a stopped trial's gang
--   wp:{type}:demand                     W   trial: a finished sweep's demand is taken off it
--   wp:{type}:sweeps                     RW  trial: a finished sweep trims ended sweeps past retention from it
--   wp:{type}:drivers                    W   trial: a finished sweep leaves it
--   wp:{type}:sweep:{id}                 RW  trial: the sweep's counts, best, warnings, state (and older sweeps' state,
--                                            to trim)
--   wp:{type}:sweep:{id}:trials          RW  trial: read to stop or expire every trial; expires with the sweep
--   wp:{type}:sweep:{id}:pending         RW  trial: the next trials are released from it; deleted when the sweep stops
--                                            or ends
--   wp:{type}:sweep:{id}:trial:{jobId}   RW  trial: the ended trial's curve: read into the median sets, then deleted
--   wp:{type}:sweep:{id}:at:{step}       W   trial: a succeeded trial's value at each step; deleted when the sweep ends
--   wp:{type}:sweep:{id}:steps           RW  trial: the steps that have an at set; read and deleted when the sweep ends
--   wp:{type}:sweep:{id}:keys            W   trial: a finished sweep's expires with it (an external sweep's)
--   wp:{type}:sweep:{id}:journal         W   trial: likewise
--   wp:{type}:tenants                    RW  a stopped job's tenant (lib/tenants.lua)
-- Publishes: wp:{type}:ended (each job that ends), wp:{type}:changed (trial: the sweep's id, once, when its trials lack
--   the objective).
--- @include "ends"
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local now = now_ms()
redis.call('HSET', POOL, 'state', 'DRAINING', 'updatedAt', now)
local cancelled = 0
local queued = redis.call('ZRANGE', QUEUE, 0, -1)
local waiting = redis.call('SMEMBERS', WAITING)
for _, t in ipairs(waiting) do
  for _, jid in ipairs(redis.call('ZRANGE', key('tq', t), 0, -1)) do table.insert(queued, jid) end
end
for _, jid in ipairs(queued) do
  if redis.call('HGET', key('job', jid), 'state') == 'QUEUED' then
    end_job(jid, 'CANCELLED', ARGV[2], now, tonumber(ARGV[3]))
    cancelled = cancelled + 1
  end
end
redis.call('DEL', QUEUE, WAITING)
for _, t in ipairs(waiting) do redis.call('DEL', key('tq', t)) end
local retired = 0
for _, pid in ipairs(redis.call('ZRANGE', IDLE, 0, -1)) do
  retire_id(pid, now)
  retired = retired + 1
end
return {cancelled, retired}
