-- lost: removes a processor whose heartbeat is older than ARGV[3] (ms since the epoch); its
-- job goes back to the queue, charged one attempt, or fails when none is left.
-- KEYS[1] pool hash.  ARGV: prefix, processor id, heartbeat deadline, reason, retention seconds
-- Returns {'LOST', job id or '', job's new state or ''}, or 'ALIVE'.
local pid = ARGV[2]
local pkey = key('proc', pid)
local s = redis.call('HMGET', pkey, 'hb', 'job')
if s[1] and tonumber(s[1]) > tonumber(ARGV[3]) then return 'ALIVE' end
local now = now_ms()
local jid = s[2] or ''
local result = ''
if jid ~= '' then
  local state = redis.call('HGET', key('job', jid), 'state')
  if state == 'ASSIGNED' or state == 'RUNNING' then
    result = requeue(jid, ARGV[4], true, now, tonumber(ARGV[5]))
  end
end
redis.call('DEL', pkey, key('inbox', pid))
redis.call('SREM', PROCS, pid)
redis.call('ZREM', IDLE, pid)
return {'LOST', jid, result}
