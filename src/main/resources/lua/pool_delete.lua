-- pool_delete: drains a pool. No new jobs; queued jobs are cancelled with a reason; idle
-- processors are retired now, busy ones when their job ends (next_or_idle sees DRAINING).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, reason, retention seconds
-- Returns {cancelled jobs, retired processors}, or 'NOPOOL'.
--- @include "ends"
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local now = now_ms()
redis.call('HSET', POOL, 'state', 'DRAINING', 'updatedAt', now)
local cancelled = 0
for _, jid in ipairs(redis.call('ZRANGE', QUEUE, 0, -1)) do
  if redis.call('HGET', key('job', jid), 'state') == 'QUEUED' then
    end_job(jid, 'CANCELLED', ARGV[2], now, tonumber(ARGV[3]))
    cancelled = cancelled + 1
  end
end
redis.call('DEL', QUEUE)
local retired = 0
for _, pid in ipairs(redis.call('ZRANGE', IDLE, 0, -1)) do
  retire_id(pid, now)
  retired = retired + 1
end
return {cancelled, retired}
