-- sweep_list: the newest sweeps of a pool, newest first.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, limit
-- Returns a list of sweep hashes, each a flat list.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:sweeps                     R   the newest ARGV[2] ids
--   wp:{type}:sweep:{id}                 R   each sweep: the whole hash
-- Publishes: nothing.
local out = {}
for _, sid in ipairs(redis.call('ZREVRANGE', key('sweeps'), 0, tonumber(ARGV[2]) - 1)) do
  local h = redis.call('HGETALL', key('sweep', sid))
  if #h > 0 then table.insert(out, h) end
end
return out
