-- sweep_journal: an external sweep's journal, the log its driver keeps in warmpool (an Optuna
-- study's JournalStorage: a restarted driver reads it back and goes on). Appends entries, or
-- reads them from an index; entries appended after the sweep ended expire with it. Only the
-- sweep's submitter (its driver acts as them) or an admin appends or reads.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, sweep id, 'append', caller's name, '1' for an admin, most entries, most bytes a journal holds,
--       the append's id (a retry of the last append under the same id appends nothing) or '', then the entries
--    or: prefix, sweep id, 'read', caller's name, '1' for an admin, first index, most entries to read
-- Returns {'APPENDED', entries now}, {'FULL', 'entries' | 'bytes', most} (nothing appended),
--   {'READ', entries now, entry...}, 'NOSWEEP', {'FORBIDDEN', submitter} or 'NOTEXTERNAL'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:sweep:{id}                 RW  submittedBy, trialFields, journalBytes, journalLast; its time to live
--   wp:{type}:sweep:{id}:journal         RW  the entries, in order
-- Publishes: nothing.
local sid = ARGV[2]
local skey = key('sweep', sid)
local s = redis.call('HMGET', skey, 'submittedBy', 'trialFields', 'journalBytes', 'journalLast')
if redis.call('EXISTS', skey) == 0 then return 'NOSWEEP' end
if ARGV[5] ~= '1' and (s[1] or '') ~= ARGV[4] then return {'FORBIDDEN', s[1] or ''} end
local jkey = key('sweep', sid, 'journal')
if ARGV[3] == 'read' then
  local from = tonumber(ARGV[6])
  local out = {'READ', tostring(redis.call('LLEN', jkey))}
  for _, e in ipairs(redis.call('LRANGE', jkey, from, from + tonumber(ARGV[7]) - 1)) do out[#out + 1] = e end
  return out
end
if (s[2] or '') == '' then return 'NOTEXTERNAL' end
if ARGV[8] ~= '' and s[4] == ARGV[8] then
  return {'APPENDED', tostring(redis.call('LLEN', jkey))} -- a retry of an append that was made
end
local most, bytes = tonumber(ARGV[6]), 0
for i = 9, #ARGV do bytes = bytes + #ARGV[i] end
if redis.call('LLEN', jkey) + (#ARGV - 8) > most then return {'FULL', 'entries', tostring(most)} end
if tonumber(s[3] or '0') + bytes > tonumber(ARGV[7]) then return {'FULL', 'bytes', ARGV[7]} end
local n = redis.call('RPUSH', jkey, unpack(ARGV, 9))
redis.call('HINCRBY', skey, 'journalBytes', bytes)
if ARGV[8] ~= '' then redis.call('HSET', skey, 'journalLast', ARGV[8]) end
local ttl = redis.call('PTTL', skey)
if ttl > 0 then redis.call('PEXPIRE', jkey, ttl) end
return {'APPENDED', tostring(n)}
