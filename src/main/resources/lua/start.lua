-- start: the agent marks its job running, only if the assignment (job and token) is still its
-- own, and gets in the same round trip what it needs to run it.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token
-- Returns {'RUN', args, config, env, timeoutSeconds, pool command, pool env, pool spec, gang},
-- where gang is '' or, for a gang member, {"role", "index", "members": [{"id", "role", "index",
-- "addr"}, ...]} as JSON; or {'STALE', reason} when the job is no longer this processor's to run.
--- @include "dispatch"
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token', 'gang', 'role', 'rank')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local state = redis.call('HGET', jkey, 'state')
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
    next_or_idle(pid, now)
    return {'STALE', 'job is ' .. tostring(state)}
  end
  job_running(jid, now)
end
changed(jid)
return run_reply(pid, jid, now, gang)
