-- finish: records a job's result and ends it (unless it already ended, e.g. cancelled),
-- then hands the processor the next queued job or marks it idle, all in one step.
-- A report whose token is not the processor's current one is refused: a job ends once.
-- A gang member's report ends the gang's job when it is the last worker to succeed (the
-- parameter servers are then stopped) or when it failed (the other members are stopped); the
-- gang moves on once every member is free.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token, end state, exit code,
--   metrics JSON (an object; what cjson cannot read is stored as {} and fails the job), log tail, error, retention seconds,
--   stopping ('1': the agent is stopping),
--   take ('1': a plain processor's agent takes its next job from this reply, not its inbox)
-- Returns {'OK', next job id or ''} or {'STALE', reason}; with take, a next job comes already
-- running: {'OK', job id, token, 'RUN', ...what start returns}, one round trip instead of three.
--- @include "ends"
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
-- metrics that are not a JSON object this script can read are not stored: the job fails with why,
-- rather than the script failing half-way and the processor with it
local ok, m = pcall(cjson.decode, ARGV[7] ~= '' and ARGV[7] or '{}')
if not ok or type(m) ~= 'table' then
  local why = 'its metrics could not be stored: ' .. (ok and 'they are not a JSON object' or tostring(m))
  ARGV[7] = '{}'
  if ARGV[5] == 'SUCCEEDED' then ARGV[5] = 'FAILED' end
  ARGV[9] = ARGV[9] == '' and why or ARGV[9] .. '; ' .. why
end
local pkey = key('proc', pid)
local jkey = key('job', jid)
local p = redis.call('HMGET', pkey, 'job', 'token', 'gang', 'role', 'rank')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local now = now_ms()
local retention = tonumber(ARGV[10])
local state = redis.call('HGET', jkey, 'state')
local gid = p[3] or ''
if gid == '' then
  redis.call('HSET', jkey, 'exitCode', ARGV[6], 'metrics', ARGV[7], 'logTail', ARGV[8])
  if state == 'ASSIGNED' or state == 'RUNNING' then
    end_job(jid, ARGV[5], ARGV[9], now, retention)
  end
else
  local gkey = key('gang', gid)
  local member = p[4] .. '-' .. p[5]
  if redis.call('HGET', jkey, 'attempts') == token then
    redis.call('HSET', jkey, 'member:' .. member, ARGV[5] .. ' (exit ' .. ARGV[6] .. ')')
    if redis.call('HGET', gkey, 'lead') == pid then
      redis.call('HSET', jkey, 'exitCode', ARGV[6], 'metrics', ARGV[7], 'logTail', ARGV[8])
    end
    if state == 'ASSIGNED' or state == 'RUNNING' then
      if ARGV[5] ~= 'SUCCEEDED' then
        local ends = (ARGV[5] == 'TIMED_OUT' or ARGV[5] == 'CANCELLED') and ARGV[5] or 'FAILED'
        if redis.call('HGET', gkey, 'lead') ~= pid then
          redis.call('HSET', jkey, 'exitCode', ARGV[6], 'logTail', ARGV[8])
        end
        end_job(jid, ends, 'member ' .. member .. ' ' .. ARGV[5] .. ': ' .. ARGV[9], now, retention)
        stop_members(gid, jid, pid)
      elseif p[4] ~= 'ps' and redis.call('HINCRBY', gkey, 'workersLeft', -1) <= 0 then
        end_job(jid, 'SUCCEEDED', '', now, retention)
        stop_members(gid, jid, pid) -- the parameter servers: their work ends with the workers'
      end
    end
  end
end
-- finished jobs leave the listing index once they have expired
redis.call('ZREMRANGEBYSCORE', JOBS, '-inf', now - retention * 1000)
if ARGV[11] == '1' then
  if gid ~= '' and redis.call('HGET', key('gang', gid), 'state') ~= 'DRAINING' then
    retire_gang(gid, now) -- a member that stops breaks its gang
  end
  retire(pid, now)
  return {'OK', ''}
end
if gid ~= '' then return {'OK', member_free(pid, gid, now)} end
local take = ARGV[12] == '1'
local nxt, ntoken = next_or_idle(pid, now, take)
if not take or nxt == '' then return {'OK', nxt} end
job_running(nxt, now)
changed(nxt)
local reply = {'OK', nxt, tostring(ntoken)}
for _, v in ipairs(run_reply(pid, nxt, now, '')) do table.insert(reply, v) end
return reply
