-- lib.lua: prepended to every script by LuaScript, so the key layout and the
-- hand-off rules are written once. Every script is called with
--   KEYS[1] = the pool hash wp:{<type>}:pool (it routes the call to the pool's hash slot)
--   ARGV[1] = the pool's key prefix wp:{<type>}:
-- and builds the other keys of that pool from the prefix, so they share one slot.
local P = ARGV[1]
local function key(...) return P .. table.concat({...}, ':') end
local POOL = KEYS[1]
local IDLE = key('idle')
local QUEUE = key('queue')
local JOBS = key('jobs')
local PROCS = key('procs')

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function ended(state)
  return state == 'SUCCEEDED' or state == 'FAILED' or state == 'CANCELLED' or state == 'TIMED_OUT'
    or state == 'EARLY_STOPPED'
end

-- Why a submit (of a job or a sweep) is not taken: 'NOPOOL', 'DRAINING', or a repeated
-- Idempotency-Key's {'DUPLICATE', what it created, its request's fingerprint}; nil to go on.
local function refusal(idem)
  local state = redis.call('HGET', POOL, 'state')
  if not state then return 'NOPOOL' end
  if state ~= 'ACTIVE' then return 'DRAINING' end
  if idem ~= '' then
    local prior = redis.call('HMGET', key('idem', idem), 'job', 'fingerprint')
    if prior[1] then return {'DUPLICATE', prior[1], prior[2] or ''} end
  end
  return nil
end

-- Remembers what an Idempotency-Key created, for ttl seconds.
local function remember(idem, id, fingerprint, ttl)
  if idem ~= '' then
    redis.call('HSET', key('idem', idem), 'job', id, 'fingerprint', fingerprint)
    redis.call('EXPIRE', key('idem', idem), tonumber(ttl))
  end
end

-- Stores a new job (fields: {field, value, ...}) as QUEUED and in the listing index; its queue
-- score orders by priority first (higher runs sooner), then by seq, the submission order.
local function store_job(jid, priority, seq, fields, now)
  local score = (1000 - priority) * 1e12 + seq
  redis.call('HSET', key('job', jid), 'state', 'QUEUED', 'attempts', 0, 'completions', 0, 'submittedAt', now,
    'score', string.format('%.0f', score), unpack(fields))
  redis.call('ZADD', JOBS, now, jid)
  return score
end

local end_job -- defined below: a trial's end moves its sweep, and a sweep's end ends its trials

-- Hands job jid to processor pid; the attempt number is the assignment's fencing token. The
-- agent hears of it through its inbox, unless it is told in the reply of the calling script
-- (quiet: the agent that just finished a job takes the next one from finish's reply).
local function assign(jid, pid, now, quiet)
  local jkey = key('job', jid)
  local token = redis.call('HINCRBY', jkey, 'attempts', 1)
  redis.call('HSET', jkey, 'state', 'ASSIGNED', 'processor', pid, 'assignedAt', now)
  redis.call('HSET', key('proc', pid), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now)
  redis.call('ZREM', IDLE, pid)
  if not quiet then redis.call('RPUSH', key('inbox', pid), 'job ' .. jid .. ' ' .. token) end
  return token
end

-- What the agent of processor pid needs to run job jid (whose state the caller has set):
-- {'RUN', args, config, env, timeoutSeconds, pool command, pool env, pool spec, gang}.
local function run_reply(pid, jid, now, gang)
  redis.call('HSET', key('proc', pid), 'hb', now)
  local j = redis.call('HMGET', key('job', jid), 'args', 'config', 'env', 'timeoutSeconds')
  local spec = redis.call('HMGET', POOL, 'command', 'env', 'spec')
  return {'RUN', j[1] or '[]', j[2] or '{}', j[3] or '{}', j[4] or '0', spec[1] or '[]', spec[2] or '{}', spec[3] or '{}', gang}
end

-- Puts a job back in its queue at its original place, or fails it when no attempt is left.
-- charge = false gives the attempt back (the processor stopped, the job did not fail).
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
  redis.call('HSET', jkey, 'state', 'QUEUED', 'processor', '', 'assignedAt', '', 'startedAt', '', 'error', reason)
  redis.call('ZADD', QUEUE, redis.call('HGET', jkey, 'score'), jid)
  return 'QUEUED'
end

-- Retires processor pid: no more work; its agent deregisters when it reads 'retire'.
local function retire(pid, now)
  redis.call('HSET', key('proc', pid), 'state', 'DRAINING', 'job', '', 'since', now)
  redis.call('ZREM', IDLE, pid)
  redis.call('RPUSH', key('inbox', pid), 'retire')
end

-- Gangs. A gang pool's processors are gangs: sets of member processors (each with its own
-- agent, heartbeat and inbox) started, claimed and reused together. The pool's idle set holds
-- gang ids; a gang is idle only when every member is.
local GANGS = key('gangs')

local function members(gid)
  local out = {}
  for m in string.gmatch(redis.call('HGET', key('gang', gid), 'members') or '', '[^,]+') do
    table.insert(out, m)
  end
  return out
end

-- A gang can take a job when it and every member of it are idle.
local function gang_ready(gid)
  if redis.call('HGET', key('gang', gid), 'state') ~= 'IDLE' then return false end
  for _, m in ipairs(members(gid)) do
    if redis.call('HGET', key('proc', m), 'state') ~= 'IDLE' then return false end
  end
  return true
end

-- Hands job jid to every member of gang gid in one step: all of them or (the caller checked) none.
local function assign_gang(jid, gid, now)
  local jkey = key('job', jid)
  local token = redis.call('HINCRBY', jkey, 'attempts', 1)
  redis.call('HSET', jkey, 'state', 'ASSIGNED', 'processor', gid, 'assignedAt', now)
  local ms = members(gid)
  local workers = 0
  for _, m in ipairs(ms) do
    if redis.call('HGET', key('proc', m), 'role') ~= 'ps' then workers = workers + 1 end
    redis.call('HSET', key('proc', m), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now)
    redis.call('RPUSH', key('inbox', m), 'job ' .. jid .. ' ' .. token)
  end
  redis.call('HSET', key('gang', gid), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now,
    'left', #ms, 'workersLeft', workers)
  redis.call('ZREM', IDLE, gid)
  return token
end

-- Tells every member of gang gid still on job jid to kill its process (cancel, an ended gang job).
local function stop_members(gid, jid, except)
  for _, m in ipairs(members(gid)) do
    local p = redis.call('HMGET', key('proc', m), 'job', 'token')
    if m ~= except and p[1] == jid then
      redis.call('RPUSH', key('inbox', m), 'cancel ' .. jid .. ' ' .. p[2])
    end
  end
end

-- Retires a whole gang: no more work; members on a job finish it (or are stopped) first.
local function retire_gang(gid, now)
  redis.call('HSET', key('gang', gid), 'state', 'DRAINING', 'since', now)
  redis.call('ZREM', IDLE, gid)
  for _, m in ipairs(members(gid)) do
    local state = redis.call('HGET', key('proc', m), 'state')
    if state == 'IDLE' or state == 'STARTING' then
      retire(m, now)
    elseif state == 'BUSY' then
      redis.call('RPUSH', key('inbox', m), 'retire')
    end
  end
end

-- A member has left Redis (lost, deregistered): the gang is broken and goes; once its last
-- member is gone, so are its keys. The reconciler starts a new gang in its place.
local function gang_member_gone(gid, pid, now)
  local gkey = key('gang', gid)
  if redis.call('EXISTS', gkey) == 0 then return end
  if redis.call('HGET', gkey, 'state') ~= 'DRAINING' then retire_gang(gid, now) end
  for _, m in ipairs(members(gid)) do
    if m ~= pid and redis.call('SISMEMBER', PROCS, m) == 1 then return end
  end
  redis.call('DEL', gkey)
  redis.call('SREM', GANGS, gid)
  redis.call('ZREM', IDLE, gid)
end

-- Retires an idle processor or gang by id (pool deletion, the reconciler).
local function retire_id(id, now)
  if redis.call('EXISTS', key('gang', id)) == 1 then
    retire_gang(id, now)
  else
    retire(id, now)
  end
end

-- The warmest idle processor (or gang) that can take a job now, taken off the idle set, and
-- whether it is a gang; or nil. A plain processor costs one read, as before gangs.
local function claim()
  while true do
    local top = redis.call('ZPOPMAX', IDLE)
    if not top[1] then return nil end
    local id = top[1]
    local state = redis.call('HGET', key('proc', id), 'state')
    if state == 'IDLE' then return id, false end
    if not state and gang_ready(id) then return id, true end
  end
end

-- Hands a job to what claim() returned.
local function hand(jid, id, gang, now)
  if gang then return assign_gang(jid, id, now) end
  return assign(jid, id, now)
end

-- The best queued job, taken off the queue (entries whose job has left the queue are dropped); or nil.
local function pop_queued()
  while true do
    local top = redis.call('ZPOPMIN', QUEUE)
    if not top[1] then return nil end
    if redis.call('HGET', key('job', top[1]), 'state') == 'QUEUED' then return top[1] end
  end
end

-- A gang whose members are all free takes the best queued job, or turns idle; a gang of a
-- draining pool (or a draining gang) is retired. Returns the job id taken, or ''.
local function gang_next_or_idle(gid, now)
  local gkey = key('gang', gid)
  if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' or redis.call('HGET', gkey, 'state') == 'DRAINING' then
    retire_gang(gid, now)
    return ''
  end
  local jid = pop_queued()
  if jid then
    assign_gang(jid, gid, now)
    return jid
  end
  redis.call('HSET', gkey, 'state', 'IDLE', 'job', '', 'token', '', 'since', now)
  redis.call('ZADD', IDLE, now, gid)
  return ''
end

-- A member is done with its part of a job (or has started): it is free, and once every member
-- is free the gang moves on. Returns the job the gang took next, or ''.
local function member_free(pid, gid, now)
  local gkey = key('gang', gid)
  if redis.call('HGET', gkey, 'state') == 'DRAINING' then
    retire(pid, now)
    return ''
  end
  redis.call('HSET', key('proc', pid), 'state', 'IDLE', 'job', '', 'token', '', 'since', now)
  for _, m in ipairs(members(gid)) do
    if redis.call('HGET', key('proc', m), 'state') ~= 'IDLE' then return '' end
  end
  return gang_next_or_idle(gid, now)
end

-- A processor that has just become free takes the best queued job, or turns idle.
-- A processor of a draining pool is retired instead. Returns the job id taken, or ''.
local function next_or_idle(pid, now, quiet)
  if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then
    retire(pid, now)
    return ''
  end
  local jid = pop_queued()
  if jid then
    return jid, assign(jid, pid, now, quiet)
  end
  redis.call('HSET', key('proc', pid), 'state', 'IDLE', 'job', '', 'token', '', 'since', now)
  redis.call('ZADD', IDLE, now, pid)
  return ''
end

-- Hands a stored job to the warmest idle processor (the one idle the shortest time), or queues
-- it by its score. Returns the processor id, or nil when the job was queued.
local function dispatch(jid, now)
  local id, gang = claim()
  if id then
    hand(jid, id, gang, now)
    return id
  end
  redis.call('ZADD', QUEUE, redis.call('HGET', key('job', jid), 'score'), jid)
  return nil
end

-- Ends a job that has not ended, wherever it is: a queued one leaves the queue, an assigned or
-- running one's agent is told to kill its process (the processor stays busy until it reports),
-- a pending sweep trial is skipped when its sweep releases trials. Returns the previous state.
local function stop_job(jid, state, reason, now, retention_s)
  local jkey = key('job', jid)
  local prev = redis.call('HGET', jkey, 'state')
  if not prev or ended(prev) then return prev end
  if prev == 'QUEUED' then
    redis.call('ZREM', QUEUE, jid)
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

-- Sweeps. A sweep's trials are stored PENDING and released into the pool's queue (or straight
-- to an idle processor) while fewer than 'parallelism' of them are out, here in the scripts that
-- end jobs, so the bound holds whether or not a manager is running.
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
      redis.call('HSET', jkey, 'state', 'QUEUED')
      active = redis.call('HINCRBY', skey, 'active', 1)
      dispatch(jid, now)
    end
  end
end

-- Ends every trial of a sweep that has not ended and gives the sweep its end state.
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
  redis.call('HINCRBY', POOL, 'sweepDemand', -tonumber(s[3] or '0'))
  for _, jid in ipairs(redis.call('LRANGE', key('sweep', sid, 'trials'), 0, -1)) do
    redis.call('EXPIRE', key('job', jid), retention_s)
  end
  for _, step in ipairs(redis.call('SMEMBERS', key('sweep', sid, 'steps'))) do
    redis.call('DEL', key('sweep', sid, 'at', step))
  end
  redis.call('DEL', key('sweep', sid, 'steps'), key('sweep', sid, 'pending'))
  redis.call('EXPIRE', skey, retention_s)
  redis.call('EXPIRE', key('sweep', sid, 'trials'), retention_s)
  -- sweeps created more than a retention period ago leave the listing once they have ended
  for _, old in ipairs(redis.call('ZRANGEBYSCORE', key('sweeps'), '-inf', now - retention_s * 1000, 'LIMIT', 0, 100)) do
    local st = redis.call('HGET', key('sweep', old), 'state')
    if not st or st ~= 'RUNNING' then redis.call('ZREM', key('sweeps'), old) end
  end
end

-- The objective's value in a metrics JSON object, or nil.
local function objective(metrics_json, metric)
  if not metrics_json or metrics_json == '' or not metric or metric == '' then return nil end
  local ok, m = pcall(cjson.decode, metrics_json)
  if not ok or type(m) ~= 'table' then return nil end
  return tonumber(m[metric])
end

local function better(goal, a, b)
  if goal == 'maximize' then return a > b end
  return a < b
end

-- A trial ended: count it, keep the best, keep its curve for the median rule, fail the sweep
-- past maxFailedTrials, release the next pending trial, and finish the sweep after its last.
local function sweep_trial_ended(sid, jid, prev, state, now, retention_s)
  local skey = key('sweep', sid)
  local s = redis.call('HMGET', skey, 'state', 'metric', 'goal', 'bestValue', 'maxFailedTrials', 'total')
  if not s[1] then return end
  if prev ~= 'PENDING' then redis.call('HINCRBY', skey, 'active', -1) end
  local curve = key('sweep', sid, 'trial', jid)
  if state == 'SUCCEEDED' then
    redis.call('HINCRBY', skey, 'succeeded', 1)
    local jkey = key('job', jid)
    local v = objective(redis.call('HGET', jkey, 'metrics'), s[2])
    if not v then v = objective(redis.call('HGET', jkey, 'progress'), s[2]) end
    if v and (not s[4] or s[4] == '' or better(s[3], v, tonumber(s[4]))) then
      redis.call('HSET', skey, 'bestTrial', jid, 'bestValue', tostring(v))
    end
    local points = redis.call('HGETALL', curve)
    for i = 1, #points, 2 do
      redis.call('ZADD', key('sweep', sid, 'at', points[i]), points[i + 1], jid)
      redis.call('SADD', key('sweep', sid, 'steps'), points[i])
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
  -- a sweep_stop above already finished the sweep when its last trial ended inside it
  if redis.call('HINCRBY', skey, 'done', 1) == tonumber(s[6]) then
    sweep_finish(sid, now, retention_s)
  end
end

-- Ends a job: end state, finish time, reason; it expires a retention period later (a sweep's
-- trial expires with its sweep, so the sweep can show every trial while it runs).
end_job = function(jid, state, reason, now, retention_s)
  local jkey = key('job', jid)
  local j = redis.call('HMGET', jkey, 'state', 'sweep')
  redis.call('HSET', jkey, 'state', state, 'finishedAt', now)
  redis.call('HINCRBY', jkey, 'completions', 1) -- a job ends once: tests and the chaos run check it
  if reason and reason ~= '' then redis.call('HSET', jkey, 'error', reason) end
  if j[2] and j[2] ~= '' then
    sweep_trial_ended(j[2], jid, j[1], state, now, retention_s)
  else
    redis.call('EXPIRE', jkey, retention_s)
  end
end
