-- tenants: fair share between the tenants of one pool (docs/fair-share.md). A job's tenant is its
-- submitter ('submittedBy'), or the group the pool's 'groups' put it in; each tenant has its own
-- queue (wp:{type}:tq:<tenant>, scored like the pool's queue: priority, then submission order), and
-- a free processor takes the head job of the tenant with the smallest weighted share
--   share = (running + decayed usage / halfLife) / weight
-- among the tenants with queued jobs and under their maxRunning; usage is processor-seconds of jobs
-- that have given their processor back, halved every halfLife seconds (lazily: on each update and
-- read), and with halfLife 0 only the running jobs count. With fairShare off the head jobs compete
-- on priority and age alone (the pool's one queue as before); maxRunning holds either way.
-- A pick costs O(tenants with queued jobs): wp:{type}:waiting names them.

local TENANTS = key('tenants')
local WAITING = key('waiting')
local NO_TENANT = '-' -- a job stored before tenants (or with no submitter)

local fair_settings -- read once per script call
-- The pool's fair-share settings: its pool hash's 'fair' (JSON written by pool_put, PoolSpec.fairJson):
-- {on, halfLife (s), shares {tenant: weight}, maxRunning {tenant: cap}, groupOf {member: group}}.
-- Keys: wp:{type}:pool R.
local function fair()
  if fair_settings then return fair_settings end
  local raw = redis.call('HGET', POOL, 'fair')
  local ok, c = false, nil
  if raw and raw ~= '' then ok, c = pcall(cjson.decode, raw) end
  if not ok or type(c) ~= 'table' then c = {} end
  c.on = c.on ~= false
  c.halfLife = tonumber(c.halfLife) or 3600
  for _, f in ipairs({'shares', 'maxRunning', 'groupOf'}) do
    if type(c[f]) ~= 'table' then c[f] = {} end
  end
  fair_settings = c
  return c
end

-- Keys: wp:{type}:pool R.
local function weight_of(t)
  local w = tonumber(fair().shares[t])
  if not w or w <= 0 then return 1 end
  return w
end

-- Keys: wp:{type}:pool R.
local function cap_of(t)
  return tonumber(fair().maxRunning[t])
end

-- The tenant a submitter's jobs count for: the pool's group of it, or itself.
-- Keys: wp:{type}:pool R.
local function tenant_for(submitted_by)
  if not submitted_by or submitted_by == '' then return NO_TENANT end
  local g = fair().groupOf[submitted_by]
  if type(g) == 'string' and g ~= '' then return g end
  return submitted_by
end

-- The value of field name in a flat {field, value, ...} list from index i on, or nil.
-- Keys: none.
local function field_in(list, i, name)
  while i < #list do
    if list[i] == name then return list[i + 1] end
    i = i + 2
  end
  return nil
end

-- A job's tenant: stored with it; a job stored before tenants gets its submitter's now.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:pool R.
local function job_tenant(jid)
  local jkey = key('job', jid)
  local t = redis.call('HGET', jkey, 'tenant')
  if t then return t end
  t = tenant_for(redis.call('HGET', jkey, 'submittedBy') or '')
  redis.call('HSET', jkey, 'tenant', t)
  return t
end

-- Usage (processor-seconds) stored as u at time at (ms), decayed to now; 0 with a half-life of 0.
-- Keys: wp:{type}:pool R.
local function decayed(u, at, now)
  local hl = fair().halfLife
  u = tonumber(u or '') or 0
  if hl <= 0 or u <= 0 then return 0 end
  at = tonumber(at or '') or now
  if now <= at then return u end
  return u * 2 ^ (-(now - at) / (hl * 1000))
end

-- A tenant's weighted share, from its running jobs and decayed usage.
-- Keys: wp:{type}:pool R.
local function share_of(t, running, usage)
  local hl = fair().halfLife
  local s = running
  if hl > 0 then s = s + usage / hl end
  return s / weight_of(t)
end

-- Whether a job of tenant t may take a processor now (it is under its maxRunning).
-- Keys: wp:{type}:tenant:{tenant} R, wp:{type}:pool R.
local function may_run(t)
  local cap = cap_of(t)
  if not cap then return true end
  return (tonumber(redis.call('HGET', key('tenant', t), 'running')) or 0) < cap
end

-- Job jid takes a processor: its tenant has one more running, charged from now.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:tenant:{tenant} W, wp:{type}:tenants W, wp:{type}:pool R.
local function tenant_start(jid, now)
  local jkey = key('job', jid)
  local t = job_tenant(jid)
  if redis.call('HEXISTS', jkey, 'chargedFrom') == 1 then return end
  redis.call('HSET', jkey, 'chargedFrom', now)
  redis.call('HINCRBY', key('tenant', t), 'running', 1)
  redis.call('SADD', TENANTS, t)
end

-- Job jid gives its processor back (it ended or went back to its queue): its tenant has one less
-- running, and the time it held the processor joins the tenant's usage. Once per start: a job
-- stored before tenants, or already stopped, changes nothing.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:tenant:{tenant} RW, wp:{type}:pool R.
local function tenant_stop(jid, now)
  local jkey = key('job', jid)
  local j = redis.call('HMGET', jkey, 'tenant', 'chargedFrom')
  if not j[1] or not j[2] or j[2] == '' then return end
  redis.call('HDEL', jkey, 'chargedFrom')
  local tkey = key('tenant', j[1])
  local h = redis.call('HMGET', tkey, 'running', 'usage', 'usageAt')
  local secs = math.max(0, now - tonumber(j[2])) / 1000
  redis.call('HSET', tkey, 'running', math.max(0, (tonumber(h[1]) or 1) - 1),
    'usage', string.format('%.6f', decayed(h[2], h[3], now) + secs), 'usageAt', now)
  redis.call('HINCRBYFLOAT', tkey, 'seconds', string.format('%.6f', secs))
end

-- A queued job joins its tenant's queue, at its score (priority, then submission order).
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:tq:{tenant} W, wp:{type}:waiting W, wp:{type}:tenants W, wp:{type}:pool R.
local function enqueue(jid, score)
  local t = job_tenant(jid)
  redis.call('ZADD', key('tq', t), score or redis.call('HGET', key('job', jid), 'score'), jid)
  redis.call('SADD', WAITING, t)
  redis.call('SADD', TENANTS, t)
end

-- A queued job leaves its queue (cancelled).
-- Keys: wp:{type}:job:{jobId} R, wp:{type}:tq:{tenant} RW, wp:{type}:waiting W, wp:{type}:queue W.
local function dequeue(jid)
  local t = redis.call('HGET', key('job', jid), 'tenant')
  if t then
    redis.call('ZREM', key('tq', t), jid)
    if redis.call('ZCARD', key('tq', t)) == 0 then redis.call('SREM', WAITING, t) end
  end
  redis.call('ZREM', QUEUE, jid) -- a job queued before tenants
end

-- Jobs queued before tenants (the pool's one queue, wp:{type}:queue) move to their tenants' queues,
-- keeping their place; once, on the first pick or pool_put after the upgrade.
-- Keys: wp:{type}:queue RW (deleted), wp:{type}:job:{jobId} RW, wp:{type}:tq:{tenant} W, wp:{type}:waiting W,
--   wp:{type}:tenants W, wp:{type}:pool R.
local function migrate()
  if redis.call('EXISTS', QUEUE) == 0 then return end
  local old = redis.call('ZRANGE', QUEUE, 0, -1, 'WITHSCORES')
  for i = 1, #old, 2 do
    if redis.call('HGET', key('job', old[i]), 'state') == 'QUEUED' then enqueue(old[i], old[i + 1]) end
  end
  redis.call('DEL', QUEUE)
end

-- Every queued job of the pool (its tenants' queues, and one queued before tenants).
-- Keys: wp:{type}:waiting R, wp:{type}:tq:{tenant} R, wp:{type}:queue R.
local function queued_total()
  local n = redis.call('ZCARD', QUEUE)
  for _, t in ipairs(redis.call('SMEMBERS', WAITING)) do n = n + redis.call('ZCARD', key('tq', t)) end
  return n
end

-- The queued jobs that could start now if processors were free: a capped tenant's count no more
-- than its cap leaves room for (what sizing starts processors for; a capped tenant's backlog would
-- only keep them idle).
-- Keys: wp:{type}:queue R, wp:{type}:waiting R, wp:{type}:tq:{tenant} R, wp:{type}:tenant:{tenant} R,
--   wp:{type}:pool R.
local function runnable_total()
  local n = redis.call('ZCARD', QUEUE)
  for _, t in ipairs(redis.call('SMEMBERS', WAITING)) do
    local q = redis.call('ZCARD', key('tq', t))
    local cap = cap_of(t)
    if cap then
      local running = tonumber(redis.call('HGET', key('tenant', t), 'running')) or 0
      q = math.min(q, math.max(0, cap - running))
    end
    n = n + q
  end
  return n
end

-- The next job for a free processor, taken off its tenant's queue: the head job of the tenant with
-- the smallest share among those with queued jobs and under their cap (ties: the better head job,
-- then the tenant's name); with fairShare off, the best head job. Nil when no tenant may run one.
-- Entries whose job has left the queue are dropped.
-- Keys: wp:{type}:waiting RW, wp:{type}:tq:{tenant} RW, wp:{type}:tenant:{tenant} R, wp:{type}:job:{jobId} RW,
--   wp:{type}:queue RW (migrate), wp:{type}:tenants W, wp:{type}:pool R.
local function pick_queued(now)
  migrate()
  local on = fair().on
  while true do
    local best, best_share, best_score
    for _, t in ipairs(redis.call('SMEMBERS', WAITING)) do
      local head = redis.call('ZRANGE', key('tq', t), 0, 0, 'WITHSCORES')
      if not head[1] then
        redis.call('SREM', WAITING, t)
      else
        local h = redis.call('HMGET', key('tenant', t), 'running', 'usage', 'usageAt')
        local running = tonumber(h[1]) or 0
        local cap = cap_of(t)
        if not cap or running < cap then
          local s = on and share_of(t, running, decayed(h[2], h[3], now)) or 0
          local score = tonumber(head[2])
          if not best or s < best_share
            or (s == best_share and (score < best_score or (score == best_score and t < best))) then
            best, best_share, best_score = t, s, score
          end
        end
      end
    end
    if not best then return nil end
    local tq = key('tq', best)
    local top = redis.call('ZPOPMIN', tq)
    if redis.call('ZCARD', tq) == 0 then redis.call('SREM', WAITING, best) end
    if redis.call('HGET', key('job', top[1]), 'state') == 'QUEUED' then return top[1] end
  end
end

-- What the API and the metrics show of each tenant: {tenant, weight, maxRunning ('' for none), running,
-- queued, usage (decayed processor-seconds), share, seconds (processor-seconds in all), its sweeps' trials'
-- seconds (sweepMs / 1000), cold starts (sweepColdStarts) and idle seconds held (sweepIdleMs / 1000), the sum of its
-- sweeps' cost (docs/sweeps.md)}, by name.
-- Keys: wp:{type}:tenants R, wp:{type}:tenant:{tenant} R, wp:{type}:tq:{tenant} R, wp:{type}:pool R.
local function tenant_rows(now)
  local names = redis.call('SMEMBERS', TENANTS)
  table.sort(names)
  local out = {}
  for _, t in ipairs(names) do
    local h = redis.call('HMGET', key('tenant', t), 'running', 'usage', 'usageAt', 'seconds', 'sweepMs', 'sweepColdStarts',
      'sweepIdleMs')
    local running = tonumber(h[1]) or 0
    local u = decayed(h[2], h[3], now)
    table.insert(out, {t, tostring(weight_of(t)), tostring(cap_of(t) or ''), tostring(running),
      tostring(redis.call('ZCARD', key('tq', t))), string.format('%.3f', u),
      string.format('%.6f', share_of(t, running, u)), string.format('%.3f', tonumber(h[4]) or 0),
      string.format('%.3f', (tonumber(h[5]) or 0) / 1000), tostring(tonumber(h[6]) or 0),
      string.format('%.3f', (tonumber(h[7]) or 0) / 1000)})
  end
  return out
end
