-- list_jobs: the newest jobs of a pool, optionally of one state, newest first; or, given a
-- sweep id, the sweep's trials in trial order.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, state or '', limit, most index entries to scan, sweep id or ''
-- Returns a list of job hashes, each a flat list.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:jobs                       R   the listing index, newest first (without a sweep id)
--   wp:{type}:job:{jobId}                R   each job listed
--   wp:{type}:sweep:{id}:trials          R   the sweep ARGV[5]'s trials (with a sweep id)
-- Publishes: nothing.
local want, limit, budget, sid = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] or ''
local out = {}
local function take(jid)
  local h = redis.call('HGETALL', key('job', jid))
  if #h > 0 and (want == '' or redis.call('HGET', key('job', jid), 'state') == want) then
    table.insert(out, h)
  end
  return #out >= limit
end
if sid ~= '' then
  for _, jid in ipairs(redis.call('LRANGE', key('sweep', sid, 'trials'), 0, budget - 1)) do
    if take(jid) then break end
  end
  return out
end
local offset = 0
while #out < limit and offset < budget do
  local ids = redis.call('ZREVRANGE', JOBS, offset, offset + 99)
  if #ids == 0 then break end
  for _, jid in ipairs(ids) do
    if take(jid) then break end
  end
  offset = offset + 100
end
return out
