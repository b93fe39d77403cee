-- submit: stores a job and, in the same step, hands it to an idle processor of its pool
-- (the one idle the shortest time, the warmest; in a gang pool, every member of an idle gang)
-- or queues it by priority, then age.
-- A repeated Idempotency-Key returns the job it created first; a full queue refuses the job.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, job id, priority (-1000..1000), idempotency key hash or '', request fingerprint,
--       idempotency ttl seconds, then field, value, field, value, ... of the job
-- Returns {'ASSIGNED', processor id, now}, {'QUEUED', queue length, now},
-- {'DUPLICATE', first job id, its fingerprint}, {'FULL', queue length}, 'NOPOOL' or 'DRAINING'.
-- Nothing is stored unless the job is ASSIGNED or QUEUED.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, maxQueued
--   wp:{type}:proc:{id}                  RW  the claimed processor (or every member of the claimed gang): state, role;
--                                            state BUSY, job, token, since
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to the claimed processor or each member
--   wp:{type}:idle                       RW  the warmest entry is popped (stale ones dropped)
--   wp:{type}:queue                      RW  its length; an unclaimed job joins it
--   wp:{type}:warmth                     RW  demand, warm or cold arrival, idle time
--   wp:{type}:jobs                       W   the job joins the listing index
--   wp:{type}:job:{jobId}                RW  the job ARGV[2] stored QUEUED, then ASSIGNED: attempts, processor,
--                                            assignedAt
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
local pid, gang = claim(now) -- a processor, or in a gang pool a gang whose members are all idle
if not pid then
  local queued = redis.call('ZCARD', QUEUE)
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
  return {'ASSIGNED', pid, tostring(now)}
end
redis.call('ZADD', QUEUE, score, jid)
return {'QUEUED', tostring(redis.call('ZCARD', QUEUE)), tostring(now)}
