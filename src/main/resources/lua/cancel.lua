-- cancel: a queued job leaves its queue; an assigned or running job ends CANCELLED now and
-- its agent is told to kill the process (the processor stays busy until the agent reports).
-- KEYS[1] pool hash.  ARGV: prefix, job id, reason, retention seconds
-- Returns {'CANCELLED', previous state}, {'ENDED', state}, or 'NOJOB'.
local jid = ARGV[2]
local jkey = key('job', jid)
local state = redis.call('HGET', jkey, 'state')
if not state then return 'NOJOB' end
if ended(state) then return {'ENDED', state} end
local now = now_ms()
if state == 'QUEUED' then
  redis.call('ZREM', QUEUE, jid)
else
  local pid = redis.call('HGET', jkey, 'processor')
  local token = redis.call('HGET', jkey, 'attempts')
  redis.call('RPUSH', key('inbox', pid), 'cancel ' .. jid .. ' ' .. token)
end
end_job(jid, 'CANCELLED', ARGV[3], now, tonumber(ARGV[4]))
return {'CANCELLED', state}
