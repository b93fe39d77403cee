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
end

-- Ends a job: end state, finish time, reason, and expiry after the retention period.
local function end_job(jid, state, reason, now, retention_s)
  local jkey = key('job', jid)
  redis.call('HSET', jkey, 'state', state, 'finishedAt', now)
  redis.call('HINCRBY', jkey, 'completions', 1) -- a job ends once: tests and the chaos run check it
  if reason and reason ~= '' then redis.call('HSET', jkey, 'error', reason) end
  redis.call('EXPIRE', jkey, retention_s)
end

-- Hands job jid to processor pid; the attempt number is the assignment's fencing token.
local function assign(jid, pid, now)
  local jkey = key('job', jid)
  local token = redis.call('HINCRBY', jkey, 'attempts', 1)
  redis.call('HSET', jkey, 'state', 'ASSIGNED', 'processor', pid, 'assignedAt', now)
  redis.call('HSET', key('proc', pid), 'state', 'BUSY', 'job', jid, 'token', token, 'since', now)
  redis.call('ZREM', IDLE, pid)
  redis.call('RPUSH', key('inbox', pid), 'job ' .. jid .. ' ' .. token)
  return token
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

-- A processor that has just become free takes the best queued job, or turns idle.
-- A processor of a draining pool is retired instead. Returns the job id taken, or ''.
local function next_or_idle(pid, now)
  if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then
    retire(pid, now)
    return ''
  end
  while true do
    local top = redis.call('ZPOPMIN', QUEUE)
    if not top[1] then break end
    if redis.call('HGET', key('job', top[1]), 'state') == 'QUEUED' then
      assign(top[1], pid, now)
      return top[1]
    end
  end
  redis.call('HSET', key('proc', pid), 'state', 'IDLE', 'job', '', 'token', '', 'since', now)
  redis.call('ZADD', IDLE, now, pid)
  return ''
end
