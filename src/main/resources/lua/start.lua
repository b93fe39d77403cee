-- start: the agent marks its job running, only if the assignment (job and token) is still its
-- own, and gets in the same round trip what it needs to run it.
-- KEYS[1] pool hash.  ARGV: prefix, processor id, job id, token
-- Returns {args, config, env, timeoutSeconds, pool command, pool env, pool workingDir}, or
-- {'STALE', reason} when the job is no longer this processor's to run.
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local state = redis.call('HGET', jkey, 'state')
local now = now_ms()
if state ~= 'ASSIGNED' then
  -- ended before it started (cancelled, or expired): the processor is free again
  next_or_idle(pid, now)
  return {'STALE', 'job is ' .. tostring(state)}
end
redis.call('HSET', jkey, 'state', 'RUNNING', 'startedAt', now)
redis.call('HSET', pkey, 'hb', now)
local j = redis.call('HMGET', jkey, 'args', 'config', 'env', 'timeoutSeconds')
local spec = redis.call('HMGET', POOL, 'command', 'env', 'spec')
return {'RUN', j[1] or '[]', j[2] or '{}', j[3] or '{}', j[4] or '0', spec[1] or '[]', spec[2] or '{}', spec[3] or '{}'}
