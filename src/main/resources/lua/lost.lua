-- lost: removes a processor whose heartbeat is older than ARGV[3] (ms since the epoch); its
-- job goes back to the queue, charged one attempt, or fails when none is left. A lost gang
-- member takes its gang with it: the other members are stopped and retired, the job requeued.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, heartbeat deadline, reason, retention seconds
-- Returns {'LOST', job id or '', job's new state or ''}, or 'ALIVE'.
--- @include "ends"
local pid = ARGV[2]
local pkey = key('proc', pid)
local s = redis.call('HMGET', pkey, 'hb', 'job', 'gang', 'token')
if s[1] and tonumber(s[1]) > tonumber(ARGV[3]) then return 'ALIVE' end
local now = now_ms()
local jid = s[2] or ''
local gid = s[3] or ''
local result = ''
if jid ~= '' then
  local j = redis.call('HMGET', key('job', jid), 'state', 'attempts')
  if (j[1] == 'ASSIGNED' or j[1] == 'RUNNING') and (gid == '' or j[2] == s[4]) then
    result = requeue(jid, ARGV[4], true, now, tonumber(ARGV[5]))
    if gid ~= '' then stop_members(gid, jid, pid) end
  end
end
redis.call('DEL', pkey, key('inbox', pid))
redis.call('SREM', PROCS, pid)
unidle(pid, now)
if gid ~= '' then gang_member_gone(gid, pid, now) end
return {'LOST', jid, result}
