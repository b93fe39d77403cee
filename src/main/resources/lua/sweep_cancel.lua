-- sweep_cancel: ends every trial of a sweep that has not ended (running ones are killed by
-- their agents) and the sweep with them; a sweep an older build left stuck (a trial whose end
-- was never counted) is finished too.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, sweep id, reason, retention seconds
-- Returns 'CANCELLED', {'ENDED', state} or 'NOSWEEP'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state: a deleted pool's sweep is stopped
--   wp:{type}:proc:{id}                  RW  a running gang trial's members: job, token; the processor (or gang
--                                            members) a released trial takes
--   wp:{type}:inbox:{id}                 W   'cancel <job> <token>' to each running trial's processor (every member of
--                                            a gang); 'job ...'
--   wp:{type}:idle                       RW  a released trial takes the warmest idle processor or gang
--   wp:{type}:queue                      W   queued trials leave it (released ones join it)
--   wp:{type}:warmth                     RW  each ended trial's demand, run time, end; a released trial's arrival
--   wp:{type}:job:{jobId}                RW  every trial: state, processor, attempts, its end; expires with the sweep
--   wp:{type}:job:{jobId}:events         W   every trial's expires with the sweep
--   wp:{type}:gang:{id}                  RW  a running trial's gang: members; one a released trial takes
--   wp:{type}:demand                     W   a finished sweep's demand is taken off it
--   wp:{type}:sweeps                     RW  a finished sweep trims ended sweeps past retention from it
--   wp:{type}:drivers                    W   the sweep leaves it (also one that had ended, or is gone)
--   wp:{type}:sweep:{id}                 RW  the sweep ARGV[2]: state, finishedAt; set CANCELLED, error; counts, best,
--                                            finishedAt (older sweeps' state, to trim)
--   wp:{type}:sweep:{id}:trials          RW  read to stop or expire every trial; expires with the sweep
--   wp:{type}:sweep:{id}:pending         RW  the next trials are released from it; deleted when the sweep stops or ends
--   wp:{type}:sweep:{id}:trial:{jobId}   RW  the ended trial's curve: read into the median sets, then deleted
--   wp:{type}:sweep:{id}:at:{step}       W   a succeeded trial's value at each step; deleted when the sweep ends
--   wp:{type}:sweep:{id}:steps           RW  the steps that have an at set; read and deleted when the sweep ends
--   wp:{type}:sweep:{id}:keys            W   a finished sweep's expires with it (an external sweep's)
--   wp:{type}:sweep:{id}:journal         W   likewise
--   wp:{type}:tenant:{tenant}            RW  a stopped job's tenant: running, usage (lib/tenants.lua); a sweep's: its cost
--   wp:{type}:tenants                    RW  read to pick the next job; a job's tenant joins it
--   wp:{type}:tq:{tenant}                RW  a tenant's queue: the next job is taken from it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
-- Publishes: wp:{type}:ended (each trial that ends), wp:{type}:changed (the sweep's id, once, when its trials lack the
--   objective).
--- @include "ends"
local sid = ARGV[2]
local state = redis.call('HGET', key('sweep', sid), 'state')
if not state or state ~= 'RUNNING' then
  redis.call('HDEL', key('drivers'), sid) -- an entry an ended sweep left (its driver's look ends it)
  if not state then return 'NOSWEEP' end
  return {'ENDED', state}
end
local now, retention = now_ms(), tonumber(ARGV[4])
sweep_stop(sid, 'CANCELLED', ARGV[3], now, retention)
-- every trial has ended now, so the last one finished the sweep; unless a trial's end was cut
-- short by an older build's error (a NaN score) and never counted: then it is finished here
if (redis.call('HGET', key('sweep', sid), 'finishedAt') or '') == '' then
  sweep_finish(sid, now, retention)
end
return 'CANCELLED'
