-- dispatch: the warmest idle processor or gang for a job, and what a freed one does next.
--- @include "jobs"
--- @include "gang"

-- The warmest idle processor (or gang) that can take a job now, taken off the idle set, and
-- whether it is a gang; or nil. A plain processor costs one read, as before gangs.
-- Keys: wp:{type}:idle RW (popped), wp:{type}:proc:{id} R, wp:{type}:gang:{id} R, wp:{type}:warmth W (idleMs).
local function claim(now)
  while true do
    local top = redis.call('ZPOPMAX', IDLE)
    if not top[1] then return nil end
    local id = top[1]
    local state = redis.call('HGET', key('proc', id), 'state')
    idle_end(top[2], now)
    if state == 'IDLE' then return id, false end
    if not state and gang_ready(id) then return id, true end
  end
end

-- Hands a job to what claim() returned.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:proc:{id} RW, wp:{type}:gang:{id} RW, wp:{type}:inbox:{id} W,
--   wp:{type}:idle RW, wp:{type}:warmth W.
local function hand(jid, id, gang, now)
  if gang then return assign_gang(jid, id, now) end
  return assign(jid, id, now)
end

-- The best queued job, taken off the queue (entries whose job has left the queue are dropped); or nil.
-- Keys: wp:{type}:queue RW (popped), wp:{type}:job:{jobId} R.
local function pop_queued()
  while true do
    local top = redis.call('ZPOPMIN', QUEUE)
    if not top[1] then return nil end
    if redis.call('HGET', key('job', top[1]), 'state') == 'QUEUED' then return top[1] end
  end
end

-- A gang whose members are all free takes the best queued job, or turns idle; a gang of a
-- draining pool (or a draining gang) is retired. Returns the job id taken, or ''.
-- Keys: wp:{type}:pool R, wp:{type}:gang:{id} RW, wp:{type}:queue RW, wp:{type}:job:{jobId} RW, wp:{type}:proc:{id} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:idle RW, wp:{type}:warmth W.
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
-- Keys: wp:{type}:pool R, wp:{type}:gang:{id} RW, wp:{type}:proc:{id} RW, wp:{type}:queue RW, wp:{type}:job:{jobId} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:idle RW, wp:{type}:warmth W.
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
-- Keys: wp:{type}:pool R, wp:{type}:proc:{id} W, wp:{type}:queue RW, wp:{type}:job:{jobId} RW, wp:{type}:idle RW,
--   wp:{type}:warmth W, wp:{type}:inbox:{id} W.
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
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:queue W, wp:{type}:idle RW, wp:{type}:proc:{id} RW, wp:{type}:gang:{id} RW,
--   wp:{type}:inbox:{id} W, wp:{type}:warmth RW.
local function dispatch(jid, now)
  local id, gang = claim(now)
  demand_up(now, id ~= nil)
  if id then
    hand(jid, id, gang, now)
    return id
  end
  redis.call('ZADD', QUEUE, redis.call('HGET', key('job', jid), 'score'), jid)
  return nil
end
