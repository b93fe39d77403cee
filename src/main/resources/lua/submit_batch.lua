-- submit_batch: stores a batch of jobs of one pool in one step: as submit does for one job, each
-- is handed to an idle processor (in a gang pool, an idle gang) or queued, best first (priority,
-- then the batch's order; a job whose tenant is at its maxRunning waits in its tenant's queue). All of them or none: a batch that would not fit in the queue even if
-- no job found an idle processor is refused whole.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).
-- ARGV: prefix, idempotency key hash or '', request fingerprint, idempotency ttl seconds, number
--       of jobs, then per job: job id, priority, number of fields n, then n field, value pairs
-- Returns {'OK', now, then per job (in the batch's order) its processor id, or '' when queued},
-- {'DUPLICATE', the batch's job ids comma-separated, its fingerprint}, {'FULL', queue length},
-- 'NOPOOL' or 'DRAINING'. Nothing is stored unless the reply is OK.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, maxQueued, fair (the tenants' groups, maxRunning)
--   wp:{type}:proc:{id}                  RW  the claimed processor (or every member of the claimed gang): state, role;
--                                            state BUSY, job, token, since
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to the claimed processor or each member
--   wp:{type}:idle                       RW  the warmest entry is popped (stale ones dropped)
--   wp:{type}:waiting                    RW  the tenants with queued jobs (the pool's queue length); joined
--   wp:{type}:tq:{tenant}                RW  each one's length; each unclaimed job joins its tenant's
--   wp:{type}:queue                      R   its length (jobs queued before tenants)
--   wp:{type}:tenant:{tenant}            RW  the jobs' tenant: running (its maxRunning), one more per job assigned
--   wp:{type}:tenants                    W   the jobs' tenant joins it
--   wp:{type}:warmth                     RW  demand, warm or cold arrival, idle time
--   wp:{type}:jobs                       W   each job joins the listing index
--   wp:{type}:job:{jobId}                RW  each job stored QUEUED with its tenant, then ASSIGNED: attempts, processor,
--                                            assignedAt, chargedFrom
--   wp:{type}:seq                        RW  the submission counter (by the batch size)
--   wp:{type}:idem:{sha256}              RW  the Idempotency-Key: read (DUPLICATE), written with its TTL
--   wp:{type}:gang:{id}                  RW  the claimed gang: state, members; state BUSY, job, token, since, left,
--                                            workersLeft
-- Publishes: nothing.
--- @include "idempotency"
--- @include "dispatch"
local refused = refusal(ARGV[2])
if refused then return refused end
local count = tonumber(ARGV[5])
local queued = queued_total()
if queued + count > tonumber(redis.call('HGET', POOL, 'maxQueued') or '10000') then
  return {'FULL', tostring(queued)}
end
local now = now_ms()
local first = redis.call('INCRBY', key('seq'), count) - count
local jobs, ids = {}, {}
local i = 6
for n = 1, count do
  local jid, priority, fields = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])
  local score = store_job(jid, priority, first + n, {unpack(ARGV, i + 3, i + 2 + 2 * fields)}, now)
  i = i + 3 + 2 * fields
  ids[n] = jid
  jobs[n] = {n = n, id = jid, score = score}
end
table.sort(jobs, function(a, b) return a.score < b.score end)
local taken = {}
for _, job in ipairs(jobs) do
  local pid, gang
  if may_run(job_tenant(job.id)) then pid, gang = claim(now) end
  demand_up(now, pid ~= nil)
  if pid then
    hand(job.id, pid, gang, now)
    taken[job.n] = pid
  else
    enqueue(job.id, job.score)
  end
end
remember(ARGV[2], table.concat(ids, ','), ARGV[3], ARGV[4])
local reply = {'OK', tostring(now)}
for n = 1, count do reply[n + 2] = taken[n] or '' end
return reply
