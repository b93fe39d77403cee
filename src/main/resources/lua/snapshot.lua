-- snapshot: one read of a pool for the API and the reconciler.
-- KEYS[1] pool hash.  ARGV: prefix
-- Returns {pool hash as a flat list, queue length, now, proc 1 flat list, proc 2 flat list, ...,
-- then, in a gang pool, gang 1 flat list, ...} (a gang's hash has 'members'), or 'NOPOOL'.
if redis.call('EXISTS', POOL) == 0 then return 'NOPOOL' end
local out = {redis.call('HGETALL', POOL), redis.call('ZCARD', QUEUE), now_ms()}
for _, pid in ipairs(redis.call('SMEMBERS', PROCS)) do
  local h = redis.call('HGETALL', key('proc', pid))
  if #h > 0 then table.insert(out, h) end
end
for _, gid in ipairs(redis.call('SMEMBERS', GANGS)) do
  local h = redis.call('HGETALL', key('gang', gid))
  if #h > 0 then table.insert(out, h) end
end
return out
