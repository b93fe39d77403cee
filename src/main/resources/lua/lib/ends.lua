-- ends: stopping, requeueing and ending jobs, and what a trial's end does to its sweep (release,
-- best trial, median rule, finish). end_job and the sweep functions call each other, so they live together.
--- @include "jobs"
--- @include "gang"
--- @include "dispatch"

local end_job -- defined below: a trial's end moves its sweep, and a sweep's end ends its trials

-- Puts a job back in its tenant's queue at its original place, or fails it when no attempt is left.
-- charge = false gives the attempt back (the processor stopped, the job did not fail).
-- Keys: wp:{type}:job:{jobId} RW; tenant_stop's, enqueue's; publishes the id on wp:{type}:changed; with no attempt
--   left, end_job's.
local function requeue(jid, reason, charge, now, retention_s)
  local jkey = key('job', jid)
  local attempts = tonumber(redis.call('HGET', jkey, 'attempts') or '0')
  if not charge then
    attempts = math.max(attempts - 1, 0)
    redis.call('HSET', jkey, 'attempts', attempts)
  end
  local max = tonumber(redis.call('HGET', jkey, 'maxAttempts') or '1')
  if attempts >= max then
    end_job(jid, 'FAILED', reason .. '; no attempts left (' .. attempts .. ' of ' .. max .. ')', now, retention_s)
    return 'FAILED'
  end
  tenant_stop(jid, now)
  redis.call('HSET', jkey, 'state', 'QUEUED', 'processor', '', 'assignedAt', '', 'startedAt', '', 'error', reason, 'queuedAt', now)
  enqueue(jid)
  changed(jid)
  return 'QUEUED'
end

-- Ends a job that has not ended, wherever it is: a queued one leaves the queue, an assigned or
-- running one's agent is told to kill its process (the processor stays busy until it reports),
-- a pending sweep trial is skipped when its sweep releases trials. Returns the previous state.
-- Keys: wp:{type}:job:{jobId} R, wp:{type}:gang:{id} R, wp:{type}:proc:{id} R, wp:{type}:inbox:{id} W; dequeue's;
--   then end_job's.
local function stop_job(jid, state, reason, now, retention_s)
  local jkey = key('job', jid)
  local prev = redis.call('HGET', jkey, 'state')
  if not prev or ended(prev) then return prev end
  if prev == 'QUEUED' then
    dequeue(jid)
  elseif prev == 'ASSIGNED' or prev == 'RUNNING' then
    local j = redis.call('HMGET', jkey, 'processor', 'attempts')
    if redis.call('EXISTS', key('gang', j[1])) == 1 then
      stop_members(j[1], jid, nil)
    else
      redis.call('RPUSH', key('inbox', j[1]), 'cancel ' .. jid .. ' ' .. j[2])
    end
  end
  end_job(jid, state, reason, now, retention_s)
  return prev
end

-- The idle time a sweep held (docs/sweeps.md, "What a sweep cost"): processor pid, idle since
-- 'since', takes a trial of sweep sid; when it turned idle as it let go of a trial of the same sweep
-- (next_or_idle marks it with that sweep and that moment), it waited for this sweep's next trial,
-- so the gap is the sweep's (and its tenant's). Idle time after another job, or before a
-- processor's first trial, is the pool's alone.
-- Keys: wp:{type}:proc:{id} R (lastSweep, lastSweepAt), wp:{type}:sweep:{id} RW (idleMs, tenant),
--   wp:{type}:tenant:{tenant} W (sweepIdleMs).
local function sweep_idle_held(sid, pid, since, now)
  local p = redis.call('HMGET', key('proc', pid), 'lastSweep', 'lastSweepAt')
  if p[1] ~= sid or tonumber(p[2] or '') ~= tonumber(since) then return end
  local ms = math.max(0, now - tonumber(since))
  local skey = key('sweep', sid)
  redis.call('HINCRBY', skey, 'idleMs', ms)
  local tenant = redis.call('HGET', skey, 'tenant')
  if tenant and tenant ~= '' then redis.call('HINCRBY', key('tenant', tenant), 'sweepIdleMs', ms) end
end

-- Sweeps. A sweep's trials are stored PENDING and released into the pool's queue (or straight
-- to an idle processor) while fewer than 'parallelism' of them are out, here in the scripts that
-- end jobs, so the bound holds whether or not a manager is running.
-- Keys: wp:{type}:sweep:{id} RW (active), wp:{type}:sweep:{id}:pending RW, wp:{type}:job:{jobId} RW;
--   then dispatch's and sweep_idle_held's for each trial released.
local function sweep_release(sid, now)
  local skey = key('sweep', sid)
  local s = redis.call('HMGET', skey, 'active', 'parallelism', 'state')
  if s[3] ~= 'RUNNING' then return end
  local active, parallelism = tonumber(s[1]), tonumber(s[2])
  while active < parallelism do
    local jid = redis.call('LPOP', key('sweep', sid, 'pending'))
    if not jid then break end
    local jkey = key('job', jid)
    if redis.call('HGET', jkey, 'state') == 'PENDING' then
      redis.call('HSET', jkey, 'state', 'QUEUED', 'queuedAt', now)
      active = redis.call('HINCRBY', skey, 'active', 1)
      -- no idle processor took it: the pool's warmth counts a cold arrival (the sweep counts a cold
      -- start only when a processor started after this is the one that runs it: start.lua)
      local pid, since = dispatch(jid, now)
      if pid and since then sweep_idle_held(sid, pid, since, now) end
    end
  end
end

-- Ends every trial of a sweep that has not ended and gives the sweep its end state.
-- Keys: wp:{type}:sweep:{id} W, wp:{type}:sweep:{id}:pending W, wp:{type}:sweep:{id}:trials R; then stop_job's for each
--   trial.
local function sweep_stop(sid, state, reason, now, retention_s)
  local skey = key('sweep', sid)
  redis.call('HSET', skey, 'state', state, 'error', reason)
  redis.call('DEL', key('sweep', sid, 'pending'))
  for _, jid in ipairs(redis.call('LRANGE', key('sweep', sid, 'trials'), 0, -1)) do
    stop_job(jid, 'CANCELLED', reason, now, retention_s)
  end
end

-- The sweep has no trial left to run: its end state, and its keys (trials included) expire
-- a retention period from now.
-- Keys: wp:{type}:sweep:{id} RW (older sweeps' R), wp:{type}:demand W, wp:{type}:sweep:{id}:trials RW,
--   wp:{type}:job:{jobId} W, wp:{type}:job:{jobId}:events W, wp:{type}:sweep:{id}:steps RW,
--   wp:{type}:sweep:{id}:at:{step} W, wp:{type}:sweep:{id}:pending W, wp:{type}:sweeps RW,
--   wp:{type}:sweep:{id}:keys W, wp:{type}:sweep:{id}:journal W (expire with it), wp:{type}:drivers W.
local function sweep_finish(sid, now, retention_s)
  local skey = key('sweep', sid)
  local s = redis.call('HMGET', skey, 'state', 'succeeded', 'demand')
  if s[1] == 'RUNNING' then
    if tonumber(s[2]) > 0 then
      redis.call('HSET', skey, 'state', 'SUCCEEDED')
    else
      redis.call('HSET', skey, 'state', 'FAILED', 'error', 'no trial succeeded')
    end
  end
  redis.call('HSET', skey, 'finishedAt', now, 'active', 0)
  redis.call('DECRBY', key('demand'), tonumber(s[3] or '0'))
  for _, jid in ipairs(redis.call('LRANGE', key('sweep', sid, 'trials'), 0, -1)) do
    redis.call('EXPIRE', key('job', jid), retention_s)
    redis.call('EXPIRE', key('job', jid, 'events'), retention_s)
  end
  for _, step in ipairs(redis.call('SMEMBERS', key('sweep', sid, 'steps'))) do
    redis.call('DEL', key('sweep', sid, 'at', step))
  end
  redis.call('DEL', key('sweep', sid, 'steps'), key('sweep', sid, 'pending'))
  redis.call('EXPIRE', skey, retention_s)
  redis.call('EXPIRE', key('sweep', sid, 'trials'), retention_s)
  redis.call('EXPIRE', key('sweep', sid, 'keys'), retention_s) -- an external sweep's
  redis.call('EXPIRE', key('sweep', sid, 'journal'), retention_s)
  redis.call('HDEL', key('drivers'), sid) -- its driver is no longer looked at
  -- sweeps created more than a retention period ago leave the listing once they have ended
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', key('sweeps'), '-inf', now - retention_s * 1000, 'LIMIT', 0, 100)) do
    local st = redis.call('HGET', key('sweep', old), 'state')
    if not st or st ~= 'RUNNING' then redis.call('ZREM', key('sweeps'), old) end
  end
end

-- A finite number: NaN, +-Infinity (or a number too large for a double) is never a trial's
-- value, so it is never best, never in a median, and never reaches ZADD (which refuses NaN).
-- Keys: none.
local function finite(v)
  return type(v) == 'number' and v == v and v > -math.huge and v < math.huge
end

-- The objective's finite value in a metrics JSON object, or nil. Agents store NaN and
-- Infinity as the strings "NaN", "Infinity", "-Infinity"; tonumber would read them (and an older
-- build's 'nan', 'inf') as non-finite numbers, which finite() turns away.
-- Keys: none.
local function objective(metrics_json, metric)
  if not metrics_json or metrics_json == '' or not metric or metric == '' then return nil end
  local ok, m = pcall(cjson.decode, metrics_json)
  if not ok or type(m) ~= 'table' then return nil end
  local v = tonumber(m[metric])
  if finite(v) then return v end
  return nil
end

-- A sweep whose first succeeded trials (WARN_AFTER of them, or all when there are fewer) all
-- lack a finite objective says so, once, in its 'warnings' (a JSON array of sentences) and on
-- its pool's changed channel: a mistyped metric name would otherwise end SUCCEEDED with no best
-- and no word. found: this succeeded trial had the objective; metrics_json: what it left.
local WARN_AFTER = 3
-- Keys: wp:{type}:sweep:{id} RW; publishes the sweep's id on wp:{type}:changed.
local function watch_objective(sid, found, metrics_json, metric, total)
  local skey = key('sweep', sid)
  local n = redis.call('HINCRBY', skey, found and 'objectiveSeen' or 'objectiveMissing', 1)
  if found or n ~= math.min(WARN_AFTER, total) or redis.call('HEXISTS', skey, 'objectiveSeen') == 1 then return end
  local ok, m = pcall(cjson.decode, metrics_json or '{}')
  if not ok or type(m) ~= 'table' then m = {} end
  local why
  if m[metric] ~= nil then
    why = string.format("The first %d trials that succeeded reported the objective '%s' only as NaN, an infinity "
      .. "or no number, so none of them can be the best.", n, metric)
  else
    local names = {}
    for k in pairs(m) do
      if type(k) == 'string' and #names < 20 then table.insert(names, k) end
    end
    table.sort(names)
    why = string.format("None of the first %d trials that succeeded reported the objective metric '%s' (the last "
      .. "one's metrics: %s); check the objective's name against what the trials return.", n, metric,
      #names > 0 and table.concat(names, ', ') or 'none')
  end
  redis.call('HSET', skey, 'warnings', cjson.encode({why}))
  changed(sid)
end

-- Keys: none.
local function better(goal, a, b)
  if goal == 'maximize' then return a > b end
  return a < b
end

-- A trial ended: count it and the time it ran (ran_ms: started to now, 0 when it never started),
-- keep the best, keep its curve for the median rule, fail the sweep
-- past maxFailedTrials, release the next pending trial, and finish the sweep after its last.
-- Keys: wp:{type}:sweep:{id} RW, wp:{type}:job:{jobId} R, wp:{type}:sweep:{id}:trial:{jobId} RW,
--   wp:{type}:sweep:{id}:at:{step} W, wp:{type}:sweep:{id}:steps W, wp:{type}:pool R,
--   wp:{type}:tenant:{tenant} W (the sweep's tenant: sweepMs); then watch_objective's,
--   sweep_stop's, sweep_release's, sweep_finish's.
local function sweep_trial_ended(sid, jid, prev, state, now, retention_s, ran_ms)
  local skey = key('sweep', sid)
  local s = redis.call('HMGET', skey, 'state', 'metric', 'goal', 'bestValue', 'maxFailedTrials', 'total')
  if not s[1] then return end
  if prev ~= 'PENDING' then redis.call('HINCRBY', skey, 'active', -1) end
  if ran_ms > 0 then -- the sweep's cost, and its tenant's (docs/sweeps.md)
    redis.call('HINCRBY', skey, 'busyMs', ran_ms)
    local tenant = redis.call('HGET', skey, 'tenant')
    if tenant and tenant ~= '' then redis.call('HINCRBY', key('tenant', tenant), 'sweepMs', ran_ms) end
  end
  local curve = key('sweep', sid, 'trial', jid)
  if state == 'SUCCEEDED' then
    redis.call('HINCRBY', skey, 'succeeded', 1)
    local jkey = key('job', jid)
    local metrics = redis.call('HGET', jkey, 'metrics')
    local v = objective(metrics, s[2])
    if not v then v = objective(redis.call('HGET', jkey, 'progress'), s[2]) end
    if s[2] and s[2] ~= '' then watch_objective(sid, v ~= nil, metrics, s[2], tonumber(s[6])) end
    local best = tonumber(s[4] or '') -- an older build may have stored 'nan' here: then any finite value beats it
    if v and (not finite(best) or better(s[3], v, best)) then
      redis.call('HSET', skey, 'bestTrial', jid, 'bestValue', tostring(v))
    end
    local points = redis.call('HGETALL', curve)
    for i = 1, #points, 2 do
      if finite(tonumber(points[i + 1])) then -- an older build's curve may hold 'nan'
        redis.call('ZADD', key('sweep', sid, 'at', points[i]), points[i + 1], jid)
        redis.call('SADD', key('sweep', sid, 'steps'), points[i])
      end
    end
  elseif state == 'FAILED' or state == 'TIMED_OUT' then
    local failed = redis.call('HINCRBY', skey, 'failed', 1)
    local most = tonumber(s[5] or '-1')
    if s[1] == 'RUNNING' and most >= 0 and failed > most then
      sweep_stop(sid, 'FAILED', failed .. ' trials failed, more than maxFailedTrials (' .. most .. ')', now, retention_s)
    end
  elseif state == 'EARLY_STOPPED' then
    redis.call('HINCRBY', skey, 'earlyStopped', 1)
  else
    redis.call('HINCRBY', skey, 'cancelled', 1)
  end
  redis.call('DEL', curve)
  if redis.call('HGET', skey, 'state') == 'RUNNING' and redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then
    sweep_stop(sid, 'CANCELLED', 'the pool was deleted', now, retention_s)
  end
  sweep_release(sid, now)
  -- a sweep_stop above already finished the sweep when its last trial ended inside it; an external
  -- sweep stopped before its driver added all its trials finishes when the last one added has ended
  local done = redis.call('HINCRBY', skey, 'done', 1)
  if done == tonumber(s[6]) then
    sweep_finish(sid, now, retention_s)
  elseif redis.call('HGET', skey, 'state') ~= 'RUNNING' and (redis.call('HGET', skey, 'finishedAt') or '') == ''
      and done == redis.call('LLEN', key('sweep', sid, 'trials')) then
    sweep_finish(sid, now, retention_s)
  end
end

-- The end message (KeySchema.ended): the job's id, a newline and its hash as a flat JSON array
-- [field, value, ...], so that a waiter answers from it without reading the job again; a job
-- whose message would exceed END_MESSAGE_MAX bytes is announced by its id alone (its waiters
-- read it). The bound keeps a burst's messages well inside Redis's pub/sub output buffer
-- (client-output-buffer-limit pubsub 8mb soft): a typical ended job is under 1 KiB.
-- Keys: wp:{type}:job:{jobId} R.
local END_MESSAGE_MAX = 8192
local function ended_message(jid, jkey)
  local fields = cjson.encode(redis.call('HGETALL', jkey))
  if #fields + #jid + 1 > END_MESSAGE_MAX then return jid end
  return jid .. '\n' .. fields
end

-- Ends a job: end state, finish time, reason; it expires a retention period later (a sweep's
-- trial expires with its sweep, so the sweep can show every trial while it runs).
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:job:{jobId}:events W, wp:{type}:warmth RW (a trial: sweepBusyMs);
--   tenant_stop's; a trial: sweep_trial_ended's; publishes the id and the ended job on wp:{type}:ended (ended_message).
end_job = function(jid, state, reason, now, retention_s)
  local jkey = key('job', jid)
  tenant_stop(jid, now) -- its tenant's share drops now, though the processor is free only once its agent reports
  local j = redis.call('HMGET', jkey, 'state', 'sweep', 'startedAt')
  if j[1] ~= 'PENDING' then demand_down(now) end -- a pending trial was never out
  local ran = 0 -- ms it ran, started to now
  if j[1] == 'RUNNING' and tonumber(j[3] or '') then
    ran = math.max(0, now - tonumber(j[3]))
    observe('rt:', ran)
  end
  redis.call('HINCRBY', WARMTH, 'e:' .. state, 1) -- jobs ended, by end state (warmpool_jobs_finished_total)
  redis.call('HSET', jkey, 'state', state, 'finishedAt', now)
  redis.call('HDEL', jkey, 'apiToken') -- a sweep driver's token: of no use once it ended, and never in the end message
  redis.call('HINCRBY', jkey, 'completions', 1) -- a job ends once: tests and the chaos run check it
  if reason and reason ~= '' then redis.call('HSET', jkey, 'error', reason) end
  if j[2] and j[2] ~= '' then
    if ran > 0 then redis.call('HINCRBY', WARMTH, 'sweepBusyMs', ran) end -- warmpool_sweep_trial_busy_seconds_total
    sweep_trial_ended(j[2], jid, j[1], state, now, retention_s, ran)
  else
    redis.call('EXPIRE', jkey, retention_s)
    redis.call('EXPIRE', key('job', jid, 'events'), retention_s) -- its log, when it wrote one
  end
  redis.call('PUBLISH', P .. 'ended', ended_message(jid, jkey)) -- KeySchema.ended: wakes whoever waits on the job
end
