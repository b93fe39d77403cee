-- report: a running job reports intermediate metrics at a step. They are kept as the job's
-- progress; for a sweep's trial the objective joins the trial's curve, and the median rule
-- stops a trial whose value, after minSteps, is worse than the median of the trials that
-- completed, at the same step. Each report also joins the job's event stream (GET /jobs/{id}/events).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token, step, metrics JSON, retention seconds,
--   the job's event stream cap (entries, about)
-- Returns 'OK', {'STOP', reason} (the job ended EARLY_STOPPED: the agent kills it) or {'STALE', reason}.
--- @include "ends"
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local p = redis.call('HMGET', key('proc', pid), 'job', 'token')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local jkey = key('job', jid)
local j = redis.call('HMGET', jkey, 'state', 'sweep')
if j[1] ~= 'RUNNING' then return {'STALE', 'job is ' .. tostring(j[1])} end
redis.call('HSET', jkey, 'progress', ARGV[6])
redis.call('XADD', key('job', jid, 'events'), 'MAXLEN', '~', ARGV[8], '*', 'report', ARGV[6])
changed(jid)
if not j[2] or j[2] == '' then return 'OK' end
local sid = j[2]
local s = redis.call('HMGET', key('sweep', sid), 'metric', 'goal', 'earlyStopping', 'minSteps', 'minTrials', 'state')
local v = objective(ARGV[6], s[1])
local step = tonumber(ARGV[5])
if not v or not step or s[6] ~= 'RUNNING' then return 'OK' end
redis.call('HSET', key('sweep', sid, 'trial', jid), step, tostring(v))
if s[3] ~= 'median' or step < tonumber(s[4]) then return 'OK' end
local at = key('sweep', sid, 'at', step)
local n = redis.call('ZCARD', at)
if n < tonumber(s[5]) or n == 0 then return 'OK' end
local mid = redis.call('ZRANGE', at, math.floor((n - 1) / 2), math.floor(n / 2), 'WITHSCORES')
local median = (tonumber(mid[2]) + tonumber(mid[#mid])) / 2
if not better(s[2], median, v) then return 'OK' end
local reason = string.format('early-stopped at step %s: %s %s is worse than %s, the median of %d completed trials',
  ARGV[5], s[1], tostring(v), tostring(median), n)
stop_job(jid, 'EARLY_STOPPED', reason, now_ms(), tonumber(ARGV[7]))
return {'STOP', reason}
