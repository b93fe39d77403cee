-- submit: stores a job and, in the same step, hands it to an idle processor of its pool
-- (the one idle the shortest time, the warmest; in a gang pool, every member of an idle gang)
-- or queues it in its tenant's queue by priority, then age (lib/tenants.lua: fair share). A job
-- whose tenant is at its maxRunning is queued even when a processor is idle.
-- A repeated Idempotency-Key returns the job it created first; a full queue refuses the job.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, job id, priority (-1000..1000), idempotency key hash or '', request fingerprint,
--       idempotency ttl seconds, then field, value, field, value, ... of the job
-- Returns {'ASSIGNED', processor id, now, tenant}, {'QUEUED', queued jobs of the pool, now, tenant},
-- {'DUPLICATE', first job id, its fingerprint}, {'FULL', queue length}, 'NOPOOL' or 'DRAINING'.
-- Nothing is stored unless the job is ASSIGNED or QUEUED.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, maxQueued, fair (the tenant's group, weight, maxRunning)
--   wp:{type}:proc:{id}                  RW  the claimed processor (or every member of the claimed gang): state, role;
--                                            state BUSY, job, token, since
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to the claimed processor or each member
--   wp:{type}:idle                       RW  the warmest entry is popped (stale ones dropped)
--   wp:{type}:waiting                    R   the tenants with queued jobs (the pool's queue length)
--   wp:{type}:tq:{tenant}                RW  each one's length; an unclaimed job joins its tenant's
--   wp:{type}:queue                      R   its length (jobs queued before tenants)
--   wp:{type}:tenant:{tenant}            RW  the job's tenant: running (its maxRunning), one more when it is assigned
--   wp:{type}:tenants                    W   the job's tenant joins it
--   wp:{type}:warmth                     RW  demand, warm or cold arrival, idle time
--   wp:{type}:jobs                       W   the job joins the listing index
--   wp:{type}:job:{jobId}                RW  the job ARGV[2] stored QUEUED with its tenant, then ASSIGNED: attempts,
--                                            processor, assignedAt, chargedFrom
--   wp:{type}:seq                        RW  the submission counter
--   wp:{type}:idem:{sha256}              RW  the Idempotency-Key: read (DUPLICATE), written with its TTL
--   wp:{type}:gang:{id}                  RW  the claimed gang: state, members; state BUSY, job, token, since, left,
--                                            workersLeft
-- Publishes: nothing.
--- @include "idempotency"
--- @include "dispatch"
local refused = refusal(ARGV[4])
if refused then return refused end
local now = now_ms()
local tenant = tenant_for(field_in(ARGV, 7, 'submittedBy'))
local pid, gang
-- a processor, or in a gang pool a gang whose members are all idle; an idle one means no tenant that
-- may run has a job queued (fill keeps it so), so the new job is next by any share
if may_run(tenant) then pid, gang = claim(now) end
if not pid then
  local queued = queued_total()
  if queued >= tonumber(redis.call('HGET', POOL, 'maxQueued') or '10000') then
    return {'FULL', tostring(queued)}
  end
end
local jid = ARGV[2]
local score = store_job(jid, tonumber(ARGV[3]), redis.call('INCR', key('seq')), {unpack(ARGV, 7)}, now)
remember(ARGV[4], jid, ARGV[5], ARGV[6])
demand_up(now, pid ~= nil)
if pid then
  hand(jid, pid, gang, now)
  return {'ASSIGNED', pid, tostring(now), tenant}
end
enqueue(jid, score)
return {'QUEUED', tostring(queued_total()), tostring(now), tenant}
