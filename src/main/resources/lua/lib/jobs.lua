-- jobs: storing a job, handing it to a processor, the reply that runs it, retiring a processor.
--- @include "warmth"
--- @include "tenants"

-- Stores a new job (fields: {field, value, ...}) as QUEUED and in the listing index, with its tenant
-- (tenant_for its submitter); its queue score orders by priority first (higher runs sooner), then by
-- seq, the submission order.
-- Keys: wp:{type}:job:{jobId} W, wp:{type}:jobs W, wp:{type}:pool R.
local function store_job(jid, priority, seq, fields, now)
  local score = (1000 - priority) * 1e12 + seq
  redis.call('HSET', key('job', jid), 'state', 'QUEUED', 'attempts', 0, 'completions', 0, 'submittedAt', now,
    'score', string.format('%.0f', score), 'tenant', tenant_for(field_in(fields, 1, 'submittedBy')), unpack(fields))
  redis.call('ZADD', JOBS, now, jid)
  return score
end

-- The job starts running: its wait in the queue (since it was stored, released or requeued: 'queuedAt') counts.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:warmth W (qw:).
local function job_running(jid, now)
  local jkey = key('job', jid)
  local t = redis.call('HMGET', jkey, 'queuedAt', 'submittedAt')
  local since = tonumber(t[1] or '') or tonumber(t[2] or '')
  if since then observe('qw:', now - since) end
  redis.call('HSET', jkey, 'state', 'RUNNING', 'startedAt', now)
end

-- Hands job jid to processor pid; the attempt number is the assignment's fencing token. The
-- agent hears of it through its inbox, unless it is told in the reply of the calling script
-- (quiet: the agent that just finished a job takes the next one from finish's reply).
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:proc:{id} W, wp:{type}:idle RW, wp:{type}:warmth W, wp:{type}:inbox:{id} W
--   (unless quiet); tenant_start's.
local function assign(jid, pid, now, quiet)
  local jkey = key('job', jid)
  local token = redis.call('HINCRBY', jkey, 'attempts', 1)
  tenant_start(jid, now)
  redis.call('HSET', jkey, 'state', 'ASSIGNED', 'processor', pid, 'assignedAt', now)
  -- deadline 0: the job has not started there (run_reply sets it; overdue.lua reads it)
  redis.call('HSET', key('proc', pid), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now, 'deadline', 0)
  unidle(pid, now)
  if not quiet then redis.call('RPUSH', key('inbox', pid), 'job ' .. jid .. ' ' .. token) end
  return token
end

-- What the agent of processor pid needs to run job jid (whose state the caller has set):
-- {'RUN', args, config, env, timeoutSeconds, pool command, pool env, pool spec, gang, tenant, apiToken (a sweep
-- driver's, else '')}. The processor's
-- deadline is now plus the job's timeout, as the agent counts it (0: no timeout): past it and the
-- reconciler's grace, the manager ends the job itself and replaces the processor (overdue.lua).
-- Keys: wp:{type}:proc:{id} W (hb: the reply counts as a heartbeat; deadline), wp:{type}:job:{jobId} R, wp:{type}:pool R.
local function run_reply(pid, jid, now, gang)
  local j = redis.call('HMGET', key('job', jid), 'args', 'config', 'env', 'timeoutSeconds', 'tenant', 'apiToken')
  local timeout = tonumber(j[4] or '') or 0
  redis.call('HSET', key('proc', pid), 'hb', now, 'deadline', timeout > 0 and string.format('%d', now + timeout * 1000) or 0)
  local spec = redis.call('HMGET', POOL, 'command', 'env', 'spec')
  return {'RUN', j[1] or '[]', j[2] or '{}', j[3] or '{}', j[4] or '0', spec[1] or '[]', spec[2] or '{}', spec[3] or '{}', gang,
    j[5] or '', j[6] or ''}
end

-- Retires processor pid: no more work; its agent deregisters when it reads 'retire'.
-- Keys: wp:{type}:proc:{id} W, wp:{type}:idle RW, wp:{type}:warmth W, wp:{type}:inbox:{id} W.
local function retire(pid, now)
  redis.call('HSET', key('proc', pid), 'state', 'DRAINING', 'job', '', 'since', now)
  unidle(pid, now)
  redis.call('RPUSH', key('inbox', pid), 'retire')
end
