-- deregister: a stopping agent removes its processor; a job it still holds goes back to the
-- queue without being charged an attempt (the processor stopped, the job did not fail). A gang
-- member that leaves takes its gang with it.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, reason, retention seconds
-- Returns the requeued job's new state, or ''.
--- @include "ends"
local pid = ARGV[2]
local pkey = key('proc', pid)
local s = redis.call('HMGET', pkey, 'job', 'gang', 'token')
local jid, gid = s[1] or '', s[2] or ''
local result = ''
local now = now_ms()
if jid ~= '' then
  local j = redis.call('HMGET', key('job', jid), 'state', 'attempts')
  if (j[1] == 'ASSIGNED' or j[1] == 'RUNNING') and (gid == '' or j[2] == s[3]) then
    result = requeue(jid, ARGV[3], false, now, tonumber(ARGV[4]))
    if gid ~= '' then stop_members(gid, jid, pid) end
  end
end
redis.call('DEL', pkey, key('inbox', pid))
redis.call('SREM', PROCS, pid)
unidle(pid, now)
if gid ~= '' then gang_member_gone(gid, pid, now) end
return result
