-- sweep_list: the newest sweeps of a pool, newest first.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, limit
-- Returns a list of sweep hashes, each a flat list.
local out = {}
for _, sid in ipairs(redis.call('ZREVRANGE', key('sweeps'), 0, tonumber(ARGV[2]) - 1)) do
  local h = redis.call('HGETALL', key('sweep', sid))
  if #h > 0 then table.insert(out, h) end
end
return out
