-- overdue: the manager's backstop for a job's timeout. A processor still on a job past the job's
-- deadline and the reconciler's grace (or that has not started its assigned job within the
-- reconciler's bound) has an agent that is stuck or dead: its heartbeat may still beat (a full heap,
-- a GC death spiral) or not be stale yet. The job ends TIMED_OUT as the agent's own timeout would
-- end it (a job that never started goes back to its queue, charged, as a lost processor's does; one
-- that already ended stays so) and the processor leaves Redis, so the reconciler stops its process
-- and starts a replacement. Its fencing token goes with it: a late report from the old agent is
-- refused (finish.lua: STALE), its heartbeat is UNKNOWN. A gang member takes its gang with it.
-- Fenced: only while the processor holds the same job, assignment (since) and deadline the caller
-- saw in its snapshot (SnapshotReply.FIELDS), so a pass on an older snapshot changes nothing.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, since (ms, as
--   seen), deadline (ms, as seen; 0: the job has not started there), reason, retention seconds
-- Returns {'REPLACED', the job's state now ('TIMED_OUT'; 'QUEUED' or 'FAILED' for a job that never started; its end
-- state when it had ended)}, 'MOVED' when the processor holds another assignment, a plain job running without a
-- deadline (no timeout) or none, or 'GONE' when Redis has no such processor: nothing is changed then.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:procs                      RW  the processor leaves it; read: whether a gang has members left
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2] (job, since, deadline, token, gang; deleted); its
--                                            gang's members (stopped, retired); trial: one a released trial takes
--   wp:{type}:inbox:{id}                 W   the processor's, deleted; its gang's members: 'cancel ...' or 'retire';
--                                            trial: 'job ...', 'cancel ...'
--   wp:{type}:idle                       RW  the processor (or its gang) leaves it; trial: a released trial takes the
--                                            warmest
--   wp:{type}:tq:{tenant}                RW  a job that never started goes back to its tenant's; idle processors take
--                                            queued jobs (fill); trial: stopped trials leave it, released ones join it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues
--   wp:{type}:tenant:{tenant}            RW  the job's tenant: running, usage, usageAt, seconds; others' read (fill)
--   wp:{type}:tenants                    W   a tenant with a queued job joins it
--   wp:{type}:warmth                     RW  idle time; the ended job's demand, run time, end (e:TIMED_OUT); trial: a
--                                            released trial's arrival
--   wp:{type}:job:{jobId}                RW  the processor's job: state, attempts, finishedAt, error (TIMED_OUT), or
--                                            requeued; trial: the other trials
--   wp:{type}:job:{jobId}:events         W   expires with the ended job (a trial's: when its sweep ends)
--   wp:{type}:gangs                      W   a gang whose last member is gone leaves it
--   wp:{type}:gang:{id}                  RW  the processor's gang: retired, deleted with its last member; trial: one a
--                                            released trial takes
--   wp:{type}:pool                       R   trial: state (a deleted pool's sweep is stopped)
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
-- Publishes: wp:{type}:ended (the job, when it ends), wp:{type}:changed (a requeued job's id; trial: the sweep's id,
--   once, when its trials lack the objective).
--- @include "drop"
local pid, jid, reason = ARGV[2], ARGV[3], ARGV[6]
local p = redis.call('HMGET', key('proc', pid), 'job', 'since', 'deadline', 'token', 'gang')
if not p[1] and redis.call('SISMEMBER', PROCS, pid) == 0 then return 'GONE' end
local deadline = p[3] or '0'
if p[1] ~= jid or p[2] ~= ARGV[4] or deadline ~= ARGV[5] then return 'MOVED' end
local gid, token = p[5] or '', p[4]
local j = redis.call('HMGET', key('job', jid), 'state', 'attempts')
local started = tonumber(deadline) > 0
-- a plain processor that started its job sets a deadline (run_reply): a running job without one has no
-- timeout (or started before deadlines were kept), and nothing is due
if not started and gid == '' and j[1] == 'RUNNING' then return 'MOVED' end
local now = now_ms()
local retention = tonumber(ARGV[7])
if started and (j[1] == 'ASSIGNED' or j[1] == 'RUNNING') and (gid == '' or j[2] == token) then
  end_job(jid, 'TIMED_OUT', reason, now, retention)
  if gid ~= '' then stop_members(gid, jid, pid) end
end
-- a job still out (it never started) goes back to its queue, charged: drop_processor's, as for a lost processor
drop_processor(pid, jid, gid, token, reason, true, now, retention)
return {'REPLACED', redis.call('HGET', key('job', jid), 'state') or ''}
