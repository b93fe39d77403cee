-- deregister: a stopping agent removes its processor; a job it still holds goes back to the
-- queue without being charged an attempt (the processor stopped, the job did not fail).
-- KEYS[1] pool hash.  ARGV: prefix, processor id, reason, retention seconds
-- Returns the requeued job's new state, or ''.
local pid = ARGV[2]
local pkey = key('proc', pid)
local jid = redis.call('HGET', pkey, 'job')
local result = ''
if jid and jid ~= '' then
  local state = redis.call('HGET', key('job', jid), 'state')
  if state == 'ASSIGNED' or state == 'RUNNING' then
    result = requeue(jid, ARGV[3], false, now_ms(), tonumber(ARGV[4]))
  end
end
redis.call('DEL', pkey, key('inbox', pid))
redis.call('SREM', PROCS, pid)
redis.call('ZREM', IDLE, pid)
return result
