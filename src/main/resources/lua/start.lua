-- start: the agent marks its job running, only if the assignment (job and token) is still its
-- own, and gets in the same round trip what it needs to run it.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token
-- Returns {'RUN', args, config, env, timeoutSeconds, pool command, pool env, pool spec, gang, tenant},
-- where gang is '' or, for a gang member, {"role", "index", "members": [{"id", "role", "index",
-- "addr"}, ...]} as JSON; or {'STALE', reason} when the job is no longer this processor's to run.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   command, env, spec for the reply; state (a draining pool retires a freed
--                                            processor)
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2]: job, token, gang, role, rank, startedAt, firstJob
--                                            (set once); hb, deadline (now plus
--                                            the job's timeout); freed (next job, IDLE, DRAINING); its gang's members:
--                                            role, rank, addr
--   wp:{type}:inbox:{id}                 W   a freed processor's next job or 'retire' (every member's, for a gang)
--   wp:{type}:idle                       RW  a freed processor or gang joins it or leaves it
--   wp:{type}:tq:{tenant}                RW  a freed processor or gang pops the next job (lib/tenants.lua's pick)
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues
--   wp:{type}:tenant:{tenant}            RW  read for the pick; the job taken's: running; a cold trial's sweep's
--                                            tenant: sweepColdStarts
--   wp:{type}:tenants                    W   a tenant with a queued or running job joins it
--   wp:{type}:warmth                     W   the job's queue wait; idle time
--   wp:{type}:job:{jobId}                RW  the job ARGV[3]: state, attempts, queuedAt, submittedAt, sweep; state RUNNING,
--                                            startedAt; args, config, env, timeoutSeconds; a next job taken
--   wp:{type}:gang:{id}                  RW  the processor's gang: members; state when a member is freed
--   wp:{type}:sweep:{id}                 RW  a trial's sweep: coldStarts, when the trial is the first job of a
--                                            processor started after the trial was queued
-- Publishes: wp:{type}:changed (the job's id).
--- @include "dispatch"
-- A sweep's trial that is the first job of a processor started after the trial was queued waited
-- for that processor's start: one cold start the sweep caused (its cost). A trial a processor
-- already up takes, even from the queue as its last trial ends, is warm. Each processor counts once
-- (firstJob on its hash).
local function sweep_cold_start(pid, jid)
  local pkey = key('proc', pid)
  if redis.call('HSETNX', pkey, 'firstJob', jid) == 0 then return end
  local j = redis.call('HMGET', key('job', jid), 'sweep', 'queuedAt', 'submittedAt')
  if not j[1] or j[1] == '' then return end
  local queued = tonumber(j[2] or '') or tonumber(j[3] or '')
  local started = tonumber(redis.call('HGET', pkey, 'startedAt') or '')
  local skey = key('sweep', j[1])
  if queued and started and started > queued and redis.call('EXISTS', skey) == 1 then
    redis.call('HINCRBY', skey, 'coldStarts', 1)
    local tenant = redis.call('HGET', skey, 'tenant')
    if tenant and tenant ~= '' then redis.call('HINCRBY', key('tenant', tenant), 'sweepColdStarts', 1) end
  end
end

local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token', 'gang', 'role', 'rank')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local js = redis.call('HMGET', jkey, 'state', 'sweep')
local state = js[1]
local now = now_ms()
local gid = p[3] or ''
local gang = ''
if gid ~= '' then
  -- every member starts the same attempt; the first one to start marks the job running
  if redis.call('HGET', jkey, 'attempts') ~= token or (state ~= 'ASSIGNED' and state ~= 'RUNNING') then
    member_free(pid, gid, now)
    return {'STALE', 'job is ' .. tostring(state)}
  end
  if state == 'ASSIGNED' then job_running(jid, now) end
  local list = {}
  for _, m in ipairs(members(gid)) do
    local h = redis.call('HMGET', key('proc', m), 'role', 'rank', 'addr')
    table.insert(list, {id = m, role = h[1], index = tonumber(h[2]), addr = h[3] or ''})
  end
  gang = cjson.encode({role = p[4], index = tonumber(p[5]), members = list})
else
  if state ~= 'ASSIGNED' then
    -- ended before it started (cancelled, or expired): the processor is free again
    next_or_idle(pid, now, false, js[2]) -- a trial's processor now waits for its sweep's next
    return {'STALE', 'job is ' .. tostring(state)}
  end
  job_running(jid, now)
  sweep_cold_start(pid, jid)
end
changed(jid)
return run_reply(pid, jid, now, gang)
