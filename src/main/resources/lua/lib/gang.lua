-- gang: a gang's members, whether it can take a job, handing a job to all of it, stopping and retiring it.
--- @include "jobs"

-- Gangs. A gang pool's processors are gangs: sets of member processors (each with its own
-- agent, heartbeat and inbox) started, claimed and reused together. The pool's idle set holds
-- gang ids; a gang is idle only when every member is.
-- Keys: wp:{type}:gang:{id} R.
local function members(gid)
  local out = {}
  for m in string.gmatch(redis.call('HGET', key('gang', gid), 'members') or '', '[^,]+') do
    table.insert(out, m)
  end
  return out
end

-- A gang can take a job when it and every member of it are idle.
-- Keys: wp:{type}:gang:{id} R, wp:{type}:proc:{id} R (each member).
local function gang_ready(gid)
  if redis.call('HGET', key('gang', gid), 'state') ~= 'IDLE' then return false end
  for _, m in ipairs(members(gid)) do
    if redis.call('HGET', key('proc', m), 'state') ~= 'IDLE' then return false end
  end
  return true
end

-- Hands job jid to every member of gang gid in one step: all of them or (the caller checked) none.
-- Keys: wp:{type}:job:{jobId} RW, wp:{type}:gang:{id} RW, wp:{type}:proc:{id} RW and wp:{type}:inbox:{id} W (each
--   member), wp:{type}:idle W; tenant_start's (a gang counts as one processor of its job's tenant).
local function assign_gang(jid, gid, now)
  local jkey = key('job', jid)
  local token = redis.call('HINCRBY', jkey, 'attempts', 1)
  tenant_start(jid, now)
  redis.call('HSET', jkey, 'state', 'ASSIGNED', 'processor', gid, 'assignedAt', now)
  local ms = members(gid)
  local workers = 0
  for _, m in ipairs(ms) do
    if redis.call('HGET', key('proc', m), 'role') ~= 'ps' then workers = workers + 1 end
    redis.call('HSET', key('proc', m), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now, 'deadline', 0)
    redis.call('RPUSH', key('inbox', m), 'job ' .. jid .. ' ' .. token)
  end
  redis.call('HSET', key('gang', gid), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now,
    'left', #ms, 'workersLeft', workers)
  redis.call('ZREM', IDLE, gid)
  return token
end

-- Tells every member of gang gid still on job jid to kill its process (cancel, an ended gang job).
-- Keys: wp:{type}:gang:{id} R, wp:{type}:proc:{id} R and wp:{type}:inbox:{id} W (each member).
local function stop_members(gid, jid, except)
  for _, m in ipairs(members(gid)) do
    local p = redis.call('HMGET', key('proc', m), 'job', 'token')
    if m ~= except and p[1] == jid then
      redis.call('RPUSH', key('inbox', m), 'cancel ' .. jid .. ' ' .. p[2])
    end
  end
end

-- Retires a whole gang: no more work; members on a job finish it (or are stopped) first.
-- Keys: wp:{type}:gang:{id} RW, wp:{type}:idle RW, wp:{type}:proc:{id} RW and wp:{type}:inbox:{id} W (each member),
--   wp:{type}:warmth W.
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
-- Keys: wp:{type}:gang:{id} RW (deleted with its last member), wp:{type}:procs R, wp:{type}:gangs W, wp:{type}:idle RW,
--   wp:{type}:proc:{id} RW, wp:{type}:inbox:{id} W, wp:{type}:warmth W.
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
-- Keys: wp:{type}:gang:{id} RW, wp:{type}:proc:{id} RW, wp:{type}:inbox:{id} W, wp:{type}:idle RW, wp:{type}:warmth W.
local function retire_id(id, now)
  if redis.call('EXISTS', key('gang', id)) == 1 then
    retire_gang(id, now)
  else
    retire(id, now)
  end
end
