-- finish: records a job's result and ends it (unless it already ended, e.g. cancelled),
-- then hands the processor the next queued job or marks it idle, all in one step.
-- A report whose token is not the processor's current one is refused: a job ends once.
-- A gang member's report ends the gang's job when it is the last worker to succeed (the
-- parameter servers are then stopped) or when it failed (the other members are stopped); the
-- gang moves on once every member is free.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token, end state, exit code,
--   metrics JSON (an object; what cjson cannot read is stored as {} and fails the job), log tail, error, retention seconds,
--   stopping ('1': the agent is stopping),
--   take ('1': a plain processor's agent takes its next job from this reply, not its inbox)
-- Returns {'OK', next job id or ''} or {'STALE', reason}; with take, a next job comes already
-- running: {'OK', job id, token, 'RUN', ...what start returns}, one round trip instead of three.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot; "trial:" marks what only
-- the end of a sweep's trial touches (its sweep counts it, stops or finishes, releases its next trials)):
--   wp:{type}:pool                       R   state (a draining pool retires the processor), command, env, spec for the
--                                            next job's reply; trial: state
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2]: job, token, gang, role, rank; next job, idle or
--                                            retired; hb, deadline (a next job that comes running); its gang's members;
--                                            trial: one a released trial takes
--   wp:{type}:inbox:{id}                 W   the processor's next job or 'retire'; gang members' 'job ...', 'cancel
--                                            ...', 'retire'; trial: 'job ...', 'cancel ...'
--   wp:{type}:idle                       RW  the processor or gang joins or leaves it; trial: a released trial takes
--                                            the warmest
--   wp:{type}:tq:{tenant}                RW  the next job (lib/tenants.lua's pick) is popped for the processor or gang,
--                                            and for idle ones (fill); trial: trials leave or join it
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues
--   wp:{type}:tenant:{tenant}            RW  the ended job's tenant: running, usage, usageAt, seconds; the next job's:
--                                            running; others' read for the pick
--   wp:{type}:tenants                    W   a tenant with a queued or running job joins it
--   wp:{type}:warmth                     RW  demand, run time, ends by state, idle time, the next job's queue wait;
--                                            trial: a released trial's arrival
--   wp:{type}:jobs                       RW  entries submitted more than the retention ago whose job has expired are trimmed
--   wp:{type}:job:{jobId}                RW  the job ARGV[3]: exitCode, metrics, logTail, member:<role>-<rank>, its
--                                            end; the next job it takes; trial: the other trials
--   wp:{type}:job:{jobId}                R   the oldest listed jobs: whether they are still kept
--   wp:{type}:job:{jobId}:events         W   expires with the ended job (a trial's: when its sweep ends)
--   wp:{type}:gang:{id}                  RW  the processor's gang: lead, workersLeft, state; idle, retired or its next
--                                            job; trial: one a released trial takes
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
-- Publishes: wp:{type}:ended (each job that ends), wp:{type}:changed (the next job's id, when it comes running in the
--   reply; trial: the sweep's id, once, when its trials lack the objective).
--- @include "ends"
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
-- metrics that are not a JSON object this script can read are not stored: the job fails with why,
-- rather than the script failing half-way and the processor with it
local ok, m = pcall(cjson.decode, ARGV[7] ~= '' and ARGV[7] or '{}')
if not ok or type(m) ~= 'table' then
  local why = 'its metrics could not be stored: ' .. (ok and 'they are not a JSON object' or tostring(m))
  ARGV[7] = '{}'
  if ARGV[5] == 'SUCCEEDED' then ARGV[5] = 'FAILED' end
  ARGV[9] = ARGV[9] == '' and why or ARGV[9] .. '; ' .. why
end
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token', 'gang', 'role', 'rank')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local now = now_ms()
local retention = tonumber(ARGV[10])
local js = redis.call('HMGET', jkey, 'state', 'sweep')
local state = js[1]
local gid = p[3] or ''
if gid == '' then
  redis.call('HSET', jkey, 'exitCode', ARGV[6], 'metrics', ARGV[7], 'logTail', ARGV[8])
  if state == 'ASSIGNED' or state == 'RUNNING' then
    end_job(jid, ARGV[5], ARGV[9], now, retention)
  end
else
  local gkey = key('gang', gid)
  local member = p[4] .. '-' .. p[5]
  if redis.call('HGET', jkey, 'attempts') == token then
    redis.call('HSET', jkey, 'member:' .. member, ARGV[5] .. ' (exit ' .. ARGV[6] .. ')')
    if redis.call('HGET', gkey, 'lead') == pid then
      redis.call('HSET', jkey, 'exitCode', ARGV[6], 'metrics', ARGV[7], 'logTail', ARGV[8])
    end
    if state == 'ASSIGNED' or state == 'RUNNING' then
      if ARGV[5] ~= 'SUCCEEDED' then
        local ends = (ARGV[5] == 'TIMED_OUT' or ARGV[5] == 'CANCELLED') and ARGV[5] or 'FAILED'
        if redis.call('HGET', gkey, 'lead') ~= pid then
          redis.call('HSET', jkey, 'exitCode', ARGV[6], 'logTail', ARGV[8])
        end
        end_job(jid, ends, 'member ' .. member .. ' ' .. ARGV[5] .. ': ' .. ARGV[9], now, retention)
        stop_members(gid, jid, pid)
      elseif p[4] ~= 'ps' and redis.call('HINCRBY', gkey, 'workersLeft', -1) <= 0 then
        end_job(jid, 'SUCCEEDED', '', now, retention)
        stop_members(gid, jid, pid) -- the parameter servers: their work ends with the workers'
      end
    end
  end
end
-- ended jobs leave the listing index once they have expired: of the oldest entries submitted more
-- than a retention ago, those whose job is gone (a job queued or running that long, or ended less
-- than a retention ago, stays listed)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', JOBS, '-inf', now - retention * 1000, 'LIMIT', 0, 16)) do
  if redis.call('EXISTS', key('job', old)) == 0 then redis.call('ZREM', JOBS, old) end
end
if ARGV[11] == '1' then
  if gid ~= '' and redis.call('HGET', key('gang', gid), 'state') ~= 'DRAINING' then
    retire_gang(gid, now) -- a member that stops breaks its gang
  end
  retire(pid, now)
  return {'OK', ''}
end
if gid ~= '' then
  local taken = member_free(pid, gid, now)
  fill(now) -- the job's tenant is under its maxRunning again, though its gang may not be free yet
  return {'OK', taken}
end
local take = ARGV[12] == '1'
local nxt, ntoken = next_or_idle(pid, now, take, js[2])
fill(now) -- what the processor did not take, idle ones may (a tenant at its maxRunning is under it again)
if not take or nxt == '' then return {'OK', nxt} end
job_running(nxt, now)
changed(nxt)
local reply = {'OK', nxt, tostring(ntoken)}
for _, v in ipairs(run_reply(pid, nxt, now, '')) do table.insert(reply, v) end
return reply
