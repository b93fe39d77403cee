-- dispatch: the warmest idle processor or gang for a job, and what a freed one does next: the job
-- pick_queued (lib/tenants.lua) chooses, by fair share between the pool's tenants.
--- @include "jobs"
--- @include "gang"

-- The warmest idle processor (or gang) that can take a job now, taken off the idle set, whether it
-- is a gang, and since when it was idle (its idle set score; a gang's: nil); or nil. A plain processor costs one read, as before gangs.
-- Keys: wp:{type}:idle RW (popped), wp:{type}:proc:{id} R, wp:{type}:gang:{id} R, wp:{type}:warmth W (idleMs).
local function claim(now)
  while true do
    local top = redis.call('ZPOPMAX', IDLE)
    if not top[1] then return nil end
    local id = top[1]
    local state = redis.call('HGET', key('proc', id), 'state')
    idle_end(top[2], now)
    if state == 'IDLE' then return id, false, top[2] end
    if not state and gang_ready(id) then return id, true end -- a gang's idle moment is its members'
  end
end

-- Hands a job to what claim() returned.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:proc:{id} RW, wp:{type}:gang:{id} RW, wp:{type}:inbox:{id} W,
--   wp:{type}:idle RW, wp:{type}:warmth W.
local function hand(jid, id, gang, now)
  if gang then return assign_gang(jid, id, now) end
  return assign(jid, id, now)
end

-- A gang whose members are all free takes the next queued job (pick_queued), or turns idle; a gang
-- of a draining pool (or a draining gang) is retired. Returns the job id taken, or ''.
-- Keys: wp:{type}:pool R, wp:{type}:gang:{id} RW, wp:{type}:job:{jobId} RW, wp:{type}:proc:{id} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:idle RW, wp:{type}:warmth W; pick_queued's.
local function gang_next_or_idle(gid, now)
  local gkey = key('gang', gid)
  if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' or redis.call('HGET', gkey, 'state') == 'DRAINING' then
    retire_gang(gid, now)
    return ''
  end
  local jid = pick_queued(now)
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
-- Keys: wp:{type}:pool R, wp:{type}:gang:{id} RW, wp:{type}:proc:{id} RW, wp:{type}:job:{jobId} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:idle RW, wp:{type}:warmth W; pick_queued's.
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

-- A processor that has just become free takes the next queued job (pick_queued), or turns idle
-- (marked with after_sweep, the sweep of the trial it let go of, which its caller has read: '' or nil
-- after another job or none). A processor of a draining pool is
-- retired instead. Returns the job id taken, or ''.
-- Keys: wp:{type}:pool R, wp:{type}:proc:{id} RW, wp:{type}:job:{jobId} RW, wp:{type}:idle RW,
--   wp:{type}:warmth W, wp:{type}:inbox:{id} W; pick_queued's.
local function next_or_idle(pid, now, quiet, after_sweep)
  if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then
    retire(pid, now)
    return ''
  end
  local jid = pick_queued(now)
  if jid then
    return jid, assign(jid, pid, now, quiet)
  end
  local pkey = key('proc', pid)
  -- idle from now after a sweep's trial: it waits for that sweep (its next trial here counts the wait:
  -- lib/ends.lua sweep_idle_held); after another job, nothing is marked (lastSweepAt is not this idle's start)
  if after_sweep and after_sweep ~= '' then
    redis.call('HSET', pkey, 'state', 'IDLE', 'job', '', 'token', '', 'since', now, 'lastSweep', after_sweep, 'lastSweepAt', now)
  else
    redis.call('HSET', pkey, 'state', 'IDLE', 'job', '', 'token', '', 'since', now)
  end
  redis.call('ZADD', IDLE, now, pid)
  return ''
end

-- Hands a stored job to the warmest idle processor (the one idle the shortest time), or queues
-- it by its score in its tenant's queue, which it also joins when its tenant is at its maxRunning.
-- Returns the processor id and since when it was idle (a gang's: nil), or nil when the job was queued.
-- An idle processor means no tenant that
-- may run a job has one queued (fill keeps it so), so the job takes its place fairly.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:idle RW, wp:{type}:proc:{id} RW, wp:{type}:gang:{id} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:warmth RW; may_run's, enqueue's.
local function dispatch(jid, now)
  local id, gang, since
  if may_run(job_tenant(jid)) then id, gang, since = claim(now) end
  demand_up(now, id ~= nil)
  if id then
    hand(jid, id, gang, now)
    return id, since
  end
  enqueue(jid)
  return nil
end

-- Keeps dispatch work-conserving: while a processor (or gang) is idle and a tenant that may run a
-- job has one queued, the job goes to the warmest idle one. Called where a tenant can become able
-- to run without a processor coming free: a cancel (the processor is free only once its agent
-- reports), a lost or stopping processor's requeued job, a pool's new maxRunning.
-- Keys: wp:{type}:idle RW; pick_queued's, claim's, hand's, enqueue's.
local function fill(now)
  while redis.call('ZCARD', IDLE) > 0 do
    local jid = pick_queued(now)
    if not jid then return end
    local id, gang = claim(now)
    if not id then
      enqueue(jid) -- back in its place: the idle entries were stale
      return
    end
    hand(jid, id, gang, now)
  end
end
