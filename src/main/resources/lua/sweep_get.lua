-- sweep_get: a sweep and the fields of its trials that the sweep view shows, in trial order.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, sweep id, then the trial fields to read (SweepGetReply.TRIAL_FIELDS)
-- Returns {sweep hash as a flat list, trial 1 fields, trial 2 fields, ...} or 'NOSWEEP'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:job:{jobId}                R   each trial's FIELDS
--   wp:{type}:sweep:{id}                 R   the sweep ARGV[2]: the whole hash
--   wp:{type}:sweep:{id}:trials          R   its trials, in order
-- Publishes: nothing.
local FIELDS = {}
for i = 3, #ARGV do FIELDS[#FIELDS + 1] = ARGV[i] end
local sid = ARGV[2]
local s = redis.call('HGETALL', key('sweep', sid))
if #s == 0 then return 'NOSWEEP' end
local out = {s}
for _, jid in ipairs(redis.call('LRANGE', key('sweep', sid, 'trials'), 0, -1)) do
  local v = redis.call('HMGET', key('job', jid), unpack(FIELDS))
  local flat = {}
  for k = 1, #FIELDS do
    if v[k] then
      table.insert(flat, FIELDS[k])
      table.insert(flat, v[k])
    end
  end
  if #flat > 0 then table.insert(out, flat) end
end
return out
