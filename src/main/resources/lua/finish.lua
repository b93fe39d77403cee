-- finish: records a job's result and ends it (unless it already ended, e.g. cancelled),
-- then hands the processor the next queued job or marks it idle, all in one step.
-- A report whose token is not the processor's current one is refused: a job ends once.
-- KEYS[1] pool hash.  ARGV: prefix, processor id, job id, token, end state, exit code,
--   metrics JSON, log tail, error, retention seconds, stopping ('1': the agent is stopping)
-- Returns {'OK', next job id or ''} or {'STALE', reason}.
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local now = now_ms()
local retention = tonumber(ARGV[10])
redis.call('HSET', jkey, 'exitCode', ARGV[6], 'metrics', ARGV[7], 'logTail', ARGV[8])
local state = redis.call('HGET', jkey, 'state')
if state == 'ASSIGNED' or state == 'RUNNING' then
  end_job(jid, ARGV[5], ARGV[9], now, retention)
end
-- finished jobs leave the listing index once they have expired
redis.call('ZREMRANGEBYSCORE', JOBS, '-inf', now - retention * 1000)
if ARGV[11] == '1' then
  retire(pid, now)
  return {'OK', ''}
end
return {'OK', next_or_idle(pid, now)}
