-- idempotency: a submit's refusals (no pool, draining, a repeated Idempotency-Key) and what a key created.

-- Why a submit (of a job or a sweep) is not taken: 'NOPOOL', 'DRAINING', or a repeated
-- Idempotency-Key's {'DUPLICATE', what it created, its request's fingerprint}; nil to go on.
-- Keys: wp:{type}:pool R, wp:{type}:idem:{sha256} R.
local function refusal(idem)
  local state = redis.call('HGET', POOL, 'state')
  if not state then return 'NOPOOL' end
  if state ~= 'ACTIVE' then return 'DRAINING' end
  if idem ~= '' then
    local prior = redis.call('HMGET', key('idem', idem), 'job', 'fingerprint')
    if prior[1] then return {'DUPLICATE', prior[1], prior[2] or ''} end
  end
  return nil
end

-- Remembers what an Idempotency-Key created, for ttl seconds.
-- Keys: wp:{type}:idem:{sha256} W.
local function remember(idem, id, fingerprint, ttl)
  if idem ~= '' then
    redis.call('HSET', key('idem', idem), 'job', id, 'fingerprint', fingerprint)
    redis.call('EXPIRE', key('idem', idem), tonumber(ttl))
  end
end
