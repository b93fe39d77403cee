-- report: a running job reports intermediate metrics at a step. They are kept as the job's
-- progress; for a sweep's trial the objective joins the trial's curve, and the median rule
-- stops a trial whose value, after minSteps, is worse than the median of the trials that
-- completed, at the same step. Each report also joins the job's event stream (GET /jobs/{id}/events).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token, step, metrics JSON, retention seconds,
--   the job's event stream cap (entries, about)
-- Returns 'OK', {'STOP', reason} (the job ended EARLY_STOPPED: the agent kills it) or {'STALE', reason}.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:pool                       R   trial: state: a deleted pool's sweep is stopped
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2]: job, token; an early-stopped gang job's members:
--                                            job, token; trial: one a released trial takes
--   wp:{type}:inbox:{id}                 W   an early-stopped job's processor (every member of a gang): 'cancel ...';
--                                            trial: 'job ...'
--   wp:{type}:idle                       RW  trial: a released trial takes the warmest idle processor or gang
--   wp:{type}:queue                      W   trial: the sweep's queued trials leave it, released ones join it
--   wp:{type}:warmth                     RW  an early-stopped job's demand, run time, end; trial: a released trial's
--                                            arrival
--   wp:{type}:job:{jobId}                RW  the job ARGV[3]: state, sweep read; progress written; ended EARLY_STOPPED;
--                                            trial: the other trials
--   wp:{type}:job:{jobId}:events         W   the report appended (XADD, capped); expires with an ended job (a trial's:
--                                            with its sweep)
--   wp:{type}:gang:{id}                  RW  an early-stopped job's gang: members; trial: one a released trial takes
--   wp:{type}:demand                     W   trial: a finished sweep's demand is taken off it
--   wp:{type}:sweeps                     RW  trial: a finished sweep trims ended sweeps past retention from it
--   wp:{type}:drivers                    W   trial: a finished sweep leaves it
--   wp:{type}:sweep:{id}                 RW  the job's sweep: metric, goal, earlyStopping, minSteps, minTrials, state;
--                                            trial: counts, best, state (older sweeps' state, to trim)
--   wp:{type}:sweep:{id}:trials          RW  trial: read to stop or expire every trial; expires with the sweep
--   wp:{type}:sweep:{id}:pending         RW  trial: the next trials are released from it; deleted when the sweep stops
--                                            or ends
--   wp:{type}:sweep:{id}:trial:{jobId}   RW  the job's curve: the objective at ARGV[5] written; trial: read into the
--                                            median sets, then deleted
--   wp:{type}:sweep:{id}:at:{step}       RW  the completed trials' values at ARGV[5], read for the median; trial:
--                                            written; deleted when the sweep ends
--   wp:{type}:sweep:{id}:steps           RW  trial: the steps that have an at set; read and deleted when the sweep ends
--   wp:{type}:sweep:{id}:keys            W   trial: a finished sweep's expires with it (an external sweep's)
--   wp:{type}:sweep:{id}:journal         W   trial: likewise
--   wp:{type}:tenant:{tenant}            RW  a stopped job's tenant: running, usage (lib/tenants.lua); a sweep's: its cost
--   wp:{type}:tenants                    RW  read to pick the next job; a job's tenant joins it
--   wp:{type}:tq:{tenant}                RW  a tenant's queue: the next job is taken from it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
-- Publishes: wp:{type}:changed (the job's id; trial: the sweep's id, once, when its trials lack the objective),
--   wp:{type}:ended (each job that ends).
--- @include "ends"
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local p = redis.call('HMGET', key('proc', pid), 'job', 'token')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local jkey = key('job', jid)
local j = redis.call('HMGET', jkey, 'state', 'sweep')
if j[1] ~= 'RUNNING' then return {'STALE', 'job is ' .. tostring(j[1])} end
redis.call('HSET', jkey, 'progress', ARGV[6])
redis.call('XADD', key('job', jid, 'events'), 'MAXLEN', '~', ARGV[8], '*', 'report', ARGV[6])
changed(jid)
if not j[2] or j[2] == '' then return 'OK' end
local sid = j[2]
local s = redis.call('HMGET', key('sweep', sid), 'metric', 'goal', 'earlyStopping', 'minSteps', 'minTrials', 'state')
local v = objective(ARGV[6], s[1])
local step = tonumber(ARGV[5])
if not v or not step or s[6] ~= 'RUNNING' then return 'OK' end
redis.call('HSET', key('sweep', sid, 'trial', jid), step, tostring(v))
if s[3] ~= 'median' or step < tonumber(s[4]) then return 'OK' end
local at = key('sweep', sid, 'at', step)
local n = redis.call('ZCARD', at)
if n < tonumber(s[5]) or n == 0 then return 'OK' end
local mid = redis.call('ZRANGE', at, math.floor((n - 1) / 2), math.floor(n / 2), 'WITHSCORES')
local median = (tonumber(mid[2]) + tonumber(mid[#mid])) / 2
if not better(s[2], median, v) then return 'OK' end
local reason = string.format('early-stopped at step %s: %s %s is worse than %s, the median of %d completed trials',
  ARGV[5], s[1], tostring(v), tostring(median), n)
stop_job(jid, 'EARLY_STOPPED', reason, now_ms(), tonumber(ARGV[7]))
return {'STOP', reason}
