-- sweep_put: stores a sweep and its trials (as PENDING jobs of the pool) and releases the first
-- 'parallelism' of them, all in one step; the scripts that end jobs release the rest.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, sweep id, idempotency key hash or '', request fingerprint, idempotency ttl seconds,
--       priority (-1000..1000) of the trials,
--       n, then n field/value pairs of the sweep (parallelism, metric, goal, ... included),
--       m, then m field/value pairs shared by every trial job,
--       then per trial: job id, config JSON
-- Trials take their place in the queue order (priority, then submission) now, when the sweep is
-- submitted, not when they are released. The sweep and its trials count for the submitter's tenant.
-- Returns {'CREATED', total, now}, {'DUPLICATE', first sweep id, its fingerprint}, 'NOPOOL' or 'DRAINING'.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, fair (the submitter's group, maxRunning)
--   wp:{type}:proc:{id}                  RW  the processor (or each member of the gang) a released trial takes
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to it
--   wp:{type}:idle                       RW  a released trial takes the warmest entry (stale ones dropped)
--   wp:{type}:tq:{tenant}                W   a released trial no processor takes joins its tenant's (the submitter's)
--   wp:{type}:waiting                    W   the trials' tenant, when one is queued
--   wp:{type}:tenant:{tenant}            RW  the trials' tenant: running (its maxRunning), one more per trial assigned
--   wp:{type}:tenants                    W   the trials' tenant joins it
--   wp:{type}:warmth                     RW  each released trial's arrival (demand, warm or cold), idle time
--   wp:{type}:jobs                       W   every trial joins the listing index
--   wp:{type}:job:{jobId}                RW  every trial stored PENDING; the released ones: state QUEUED, queuedAt,
--                                            then ASSIGNED or queued
--   wp:{type}:seq                        RW  the submission counter, once per trial
--   wp:{type}:demand                     W   the sweep's demand added
--   wp:{type}:idem:{sha256}              RW  the Idempotency-Key: read (DUPLICATE), written with its TTL
--   wp:{type}:gang:{id}                  RW  the gang a released trial takes: state, members; BUSY, job, token
--   wp:{type}:sweeps                     W   the sweep ARGV[2] joins it
--   wp:{type}:drivers                    W   a sweep with a driver job joins it (its 'driver' field)
--   wp:{type}:sweep:{id}                 RW  the sweep: stored RUNNING; parallelism read; total, demand; active
--                                            counted up as trials are released; an external sweep's
--                                            (trialFields set): total as given, demand 0
--   wp:{type}:sweep:{id}:trials          W   every trial, in order
--   wp:{type}:sweep:{id}:pending         RW  every trial; the first parallelism popped and released
-- Publishes: nothing.
--- @include "idempotency"
--- @include "ends"
local refused = refusal(ARGV[3])
if refused then return refused end
local sid = ARGV[2]
local skey = key('sweep', sid)
local now = now_ms()
local priority = tonumber(ARGV[6])
local i = 7
local n = tonumber(ARGV[i])
redis.call('HSET', skey, 'id', sid, 'state', 'RUNNING', 'createdAt', now, 'active', 0, 'done', 0,
  'succeeded', 0, 'failed', 0, 'cancelled', 0, 'earlyStopped', 0, unpack(ARGV, i + 1, i + 2 * n))
i = i + 2 * n + 1
local m = tonumber(ARGV[i])
local common = {unpack(ARGV, i + 1, i + 2 * m)}
local tenant = tenant_for(field_in(common, 1, 'submittedBy'))
redis.call('HSET', skey, 'tenant', tenant)
local driver = redis.call('HGET', skey, 'driver')
if driver and driver ~= '' then redis.call('HSET', key('drivers'), sid, driver) end
i = i + 2 * m + 1
local total = 0
while i + 1 <= #ARGV do
  local jid = ARGV[i]
  local score = (1000 - priority) * 1e12 + redis.call('INCR', key('seq'))
  redis.call('HSET', key('job', jid), 'id', jid, 'state', 'PENDING', 'attempts', 0, 'completions', 0,
    'submittedAt', now, 'score', string.format('%.0f', score), 'config', ARGV[i + 1], 'sweep', sid, 'trial', total,
    'tenant', tenant, unpack(common))
  redis.call('ZADD', JOBS, now, jid)
  redis.call('RPUSH', key('sweep', sid, 'trials'), jid)
  redis.call('RPUSH', key('sweep', sid, 'pending'), jid)
  total = total + 1
  i = i + 2
end
if (redis.call('HGET', skey, 'trialFields') or '') ~= '' then
  -- an external sweep: no trial yet (its driver adds them, sweep_add.lua), 'total' as given (the most it
  -- takes), and no demand of its own: a trial added is a job the pool sees in its queue
  redis.call('HSET', skey, 'demand', 0)
  total = tonumber(redis.call('HGET', skey, 'total'))
else
  local demand = math.min(tonumber(redis.call('HGET', skey, 'parallelism')), total)
  redis.call('HSET', skey, 'total', total, 'demand', demand)
  redis.call('INCRBY', key('demand'), demand)
end
redis.call('ZADD', key('sweeps'), now, sid)
remember(ARGV[3], sid, ARGV[4], ARGV[5])
sweep_release(sid, now)
return {'CREATED', tostring(total), tostring(now)}
