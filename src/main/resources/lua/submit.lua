-- submit: stores a job and, in the same step, hands it to an idle processor of its pool
-- (the one idle the shortest time, the warmest) or queues it by priority, then age.
-- KEYS[1] pool hash.  ARGV: prefix, job id, priority (-1000..1000), field, value, field, value, ...
-- Returns {'ASSIGNED', processor id, now} or {'QUEUED', queue length, now}, or 'NOPOOL' / 'DRAINING'.
local state = redis.call('HGET', POOL, 'state')
if not state then return 'NOPOOL' end
if state ~= 'ACTIVE' then return 'DRAINING' end
local now = now_ms()
local jid = ARGV[2]
local jkey = key('job', jid)
-- priority first (higher runs sooner), then submission order within a priority
local seq = redis.call('INCR', key('seq'))
local score = (1000 - tonumber(ARGV[3])) * 1e12 + seq
redis.call('HSET', jkey, 'state', 'QUEUED', 'attempts', 0, 'submittedAt', now, 'score', string.format('%.0f', score))
for i = 4, #ARGV, 2 do redis.call('HSET', jkey, ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', JOBS, now, jid)
while true do
  local top = redis.call('ZPOPMAX', IDLE)
  if not top[1] then break end
  if redis.call('HGET', key('proc', top[1]), 'state') == 'IDLE' then
    assign(jid, top[1], now)
    return {'ASSIGNED', top[1], tostring(now)}
  end
end
redis.call('ZADD', QUEUE, score, jid)
return {'QUEUED', tostring(redis.call('ZCARD', QUEUE)), tostring(now)}
