-- lost: removes a processor whose heartbeat is older than ARGV[3] (ms since the epoch); its
-- job goes back to the queue, charged one attempt, or fails when none is left. A lost gang
-- member takes its gang with it: the other members are stopped and retired, the job requeued.
-- A processor lost before it registered (STARTING: its start failed, its process exited first, or
-- it never came up) leaves the reason on its pool, as startError with startErrorAt: GET /pools/{type}
-- says why the pool has no processors (PoolView.startError) until one started after it is up. The
-- reason is the processor's own startError when its agent left one (start_failed.lua), else ARGV[4].
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, heartbeat deadline, reason, retention seconds
-- Returns {'LOST', job id or '', job's new state or ''}, 'ALIVE', or 'GONE' when Redis has no such processor (it
-- deregistered, or another caller found it lost first): nothing is changed then.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:pool                       RW  startError, startErrorAt, when the processor had not registered; trial:
--                                            state: a deleted pool's sweep is stopped
--   wp:{type}:procs                      RW  the processor leaves it; read: whether a gang has members left
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2] (job, gang, token, startError; deleted); its gang's members
--                                            (stopped, retired); trial: one a released trial takes
--   wp:{type}:inbox:{id}                 W   the processor's, deleted; its gang's members: 'cancel ...' or 'retire';
--                                            trial: 'job ...', 'cancel ...'
--   wp:{type}:idle                       RW  the processor (or its gang) leaves it; trial: a released trial takes the
--                                            warmest
--   wp:{type}:tq:{tenant}                RW  the job goes back to its tenant's; idle processors take queued jobs (fill);
--                                            trial: stopped trials leave it, released ones join it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues
--   wp:{type}:tenant:{tenant}            RW  the job's tenant: running, usage, usageAt, seconds; others' read (fill)
--   wp:{type}:tenants                    W   a tenant with a queued job joins it
--   wp:{type}:warmth                     RW  idle time; a failed job's demand, run time, end; trial: a released trial's
--                                            arrival
--   wp:{type}:job:{jobId}                RW  the processor's job: state, attempts (charged), requeued or failed; trial:
--                                            the other trials
--   wp:{type}:job:{jobId}:events         W   expires with a failed job (a trial's: when its sweep ends)
--   wp:{type}:gangs                      W   a gang whose last member is gone leaves it
--   wp:{type}:gang:{id}                  RW  the processor's gang: retired, deleted with its last member; trial: one a
--                                            released trial takes
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
-- Publishes: wp:{type}:changed (the requeued job's id; trial: the sweep's id, once, when its trials lack the
--   objective), wp:{type}:ended (each job that ends).
--- @include "drop"
local pid = ARGV[2]
if redis.call('EXISTS', key('proc', pid)) == 0 and redis.call('SISMEMBER', PROCS, pid) == 0 then return 'GONE' end
local s = redis.call('HMGET', key('proc', pid), 'hb', 'job', 'gang', 'token', 'state', 'startError')
if s[1] and tonumber(s[1]) > tonumber(ARGV[3]) then return 'ALIVE' end
local jid = s[2] or ''
local now = now_ms()
if s[5] == 'STARTING' and redis.call('EXISTS', POOL) == 1 then
  redis.call('HSET', POOL, 'startError', s[6] or ARGV[4], 'startErrorAt', now)
end
return {'LOST', jid, drop_processor(pid, jid, s[3] or '', s[4], ARGV[4], true, now, tonumber(ARGV[5]))}
