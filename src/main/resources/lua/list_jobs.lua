-- list_jobs: the newest jobs of a pool, optionally of one state, newest first.
-- KEYS[1] pool hash.  ARGV: prefix, state or '', limit, most index entries to scan
-- Returns a list of job hashes, each a flat list.
local want, limit, budget = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local out = {}
local offset = 0
while #out < limit and offset < budget do
  local ids = redis.call('ZREVRANGE', JOBS, offset, offset + 99)
  if #ids == 0 then break end
  for _, jid in ipairs(ids) do
    local h = redis.call('HGETALL', key('job', jid))
    if #h > 0 and (want == '' or redis.call('HGET', key('job', jid), 'state') == want) then
      table.insert(out, h)
      if #out >= limit then break end
    end
  end
  offset = offset + 100
end
return out
