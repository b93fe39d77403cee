-- cancel: a queued (or pending) job leaves its queue; an assigned or running job ends CANCELLED
-- (or EARLY_STOPPED, when a tuner outside pruned it) now and its agent is told to kill the
-- process (the processor stays busy until the agent reports). Its tenant's share drops at once, so
-- idle processors take queued jobs of a tenant it held at its maxRunning (fill).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, job id, reason, retention seconds, end state
-- Returns {'CANCELLED', previous state}, {'ENDED', state}, or 'NOJOB'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:pool                       R   trial: state: a deleted pool's sweep is stopped
--   wp:{type}:proc:{id}                  RW  a gang job's members: job, token; trial: the processor (or gang members) a
--                                            released trial takes
--   wp:{type}:inbox:{id}                 W   'cancel <job> <token>' to the job's processor (every member of a gang);
--                                            trial: 'job ...'
--   wp:{type}:idle                       RW  trial: a released trial takes the warmest idle processor or gang
--   wp:{type}:tq:{tenant}                RW  a queued job leaves its tenant's; idle processors take queued jobs (fill);
--                                            trial: the sweep's queued trials leave it, released ones join it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues, or leave
--   wp:{type}:tenant:{tenant}            RW  the job's tenant: running, usage, usageAt, seconds; others' read (fill)
--   wp:{type}:tenants                    W   tenants of jobs queued before tenants join it
--   wp:{type}:warmth                     RW  demand, run time, ends by state; trial: a released trial's arrival
--   wp:{type}:job:{jobId}                RW  the job ARGV[2]: state, processor, attempts, its end; trial: the sweep's
--                                            other trials
--   wp:{type}:job:{jobId}:events         W   expires with the job (a trial's: when its sweep ends)
--   wp:{type}:gang:{id}                  RW  the job's processor, when it is a gang: its members; trial: one a released
--                                            trial takes
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
-- Publishes: wp:{type}:ended (each job that ends), wp:{type}:changed (trial: the sweep's id, once, when its trials lack
--   the objective).
--- @include "ends"
local jid = ARGV[2]
local state = redis.call('HGET', key('job', jid), 'state')
if not state then return 'NOJOB' end
if ended(state) then return {'ENDED', state} end
local now = now_ms()
stop_job(jid, ARGV[5] == 'EARLY_STOPPED' and 'EARLY_STOPPED' or 'CANCELLED', ARGV[3], now, tonumber(ARGV[4]))
fill(now) -- its tenant may be under its maxRunning again while processors idle
return {'CANCELLED', state}
