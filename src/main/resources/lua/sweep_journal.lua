-- sweep_journal: an external sweep's journal, the log its driver keeps in warmpool (an Optuna
-- study's JournalStorage: a restarted driver reads it back and goes on). Appends entries, or
-- reads them from an index; entries appended after the sweep ended expire with it.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, sweep id, 'append', most entries a journal holds, then the entries (JSON text each)
--    or: prefix, sweep id, 'read', first index, most entries to read
-- Returns {'APPENDED', entries now}, {'FULL', most} (nothing appended), {'READ', entries now, entry...} or 'NOSWEEP'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:sweep:{id}                 R   it exists; its time to live (an ended sweep's)
--   wp:{type}:sweep:{id}:journal         RW  the entries, in order
-- Publishes: nothing.
local sid = ARGV[2]
local skey = key('sweep', sid)
if redis.call('EXISTS', skey) == 0 then return 'NOSWEEP' end
local jkey = key('sweep', sid, 'journal')
if ARGV[3] == 'read' then
  local from = tonumber(ARGV[4])
  local out = {'READ', tostring(redis.call('LLEN', jkey))}
  for _, e in ipairs(redis.call('LRANGE', jkey, from, from + tonumber(ARGV[5]) - 1)) do out[#out + 1] = e end
  return out
end
local most = tonumber(ARGV[4])
if redis.call('LLEN', jkey) + (#ARGV - 4) > most then return {'FULL', tostring(most)} end
local n = redis.call('RPUSH', jkey, unpack(ARGV, 5))
local ttl = redis.call('PTTL', skey)
if ttl > 0 then redis.call('PEXPIRE', jkey, ttl) end
return {'APPENDED', tostring(n)}
