-- pool_put: creates or updates a pool (idempotent); a draining pool becomes active again. Its fair
-- share settings apply from now: jobs queued before tenants move to their tenants' queues, each
-- tenant's running count is counted again from the processors' jobs (an agent of an earlier version
-- ends jobs without counting them down), and idle processors take what a new maxRunning lets run.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, spec JSON, minIdle, maxSize, idleTimeoutMs, command JSON, env JSON, maxQueued,
--   gang ('1' for a gang pool, else ''), fair (JSON: PoolSpec.fairJson; '' for the defaults)
-- Returns 'created', 'updated', or 'GANGCHANGE' when the update would turn a pool into a gang
-- pool or back (its processors could not follow: delete it first).
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       RW  gang read; spec, minIdle, maxSize, idleTimeoutMs, command, env, maxQueued,
--                                            gang, fair, state, updatedAt (createdAt) written; startError,
--                                            startErrorAt deleted (the new spec gets a fresh verdict)
--   wp:{type}:procs                      R   every processor (their jobs' tenants are counted)
--   wp:{type}:proc:{id}                  RW  each processor's job and gang; an idle one may take a job (fill)
--   wp:{type}:gangs                      R   every gang
--   wp:{type}:gang:{id}                  RW  each gang's job; an idle one may take a job (fill)
--   wp:{type}:job:{jobId}                RW  the processors' jobs: tenant, chargedFrom; queued jobs moved or taken
--   wp:{type}:tenants                    RW  every tenant (running counted again)
--   wp:{type}:tenant:{tenant}            RW  running
--   wp:{type}:tq:{tenant}                RW  jobs queued before tenants join them; idle processors take queued jobs
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved, then deleted
--   wp:{type}:idle                       RW  an idle processor or gang may take a job (fill)
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to one that takes a job
--   wp:{type}:warmth                     W   idle time of one that takes a job
--   wp:{type}:jobs                       W   a new pool keeps the job index of a collected one of its type (no expiry)
--   wp:{type}:sweeps                     W   likewise the sweep index
-- Publishes: nothing.
--- @include "dispatch"
local now = now_ms()
local created = redis.call('EXISTS', POOL) == 0
if not created and (redis.call('HGET', POOL, 'gang') or '') ~= (ARGV[9] or '') then return 'GANGCHANGE' end
redis.call('HSET', POOL, 'spec', ARGV[2], 'minIdle', ARGV[3], 'maxSize', ARGV[4],
  'idleTimeoutMs', ARGV[5], 'command', ARGV[6], 'env', ARGV[7], 'maxQueued', ARGV[8], 'gang', ARGV[9] or '',
  'fair', ARGV[10] or '', 'state', 'ACTIVE',
  'updatedAt', now)
redis.call('HDEL', POOL, 'startError', 'startErrorAt')
if created then
  redis.call('HSET', POOL, 'createdAt', now)
  -- a pool collected by pool_gc left its indexes to expire; this one lists its jobs for good
  redis.call('PERSIST', JOBS)
  redis.call('PERSIST', key('sweeps'))
  return 'created'
end
migrate()
-- running again from the processors' jobs (a gang's members share one: counted once, by the gang)
local running = {}
local function count(jid)
  if not jid or jid == '' then return end
  local j = redis.call('HMGET', key('job', jid), 'tenant', 'chargedFrom')
  if j[1] and j[2] then running[j[1]] = (running[j[1]] or 0) + 1 end
end
for _, pid in ipairs(redis.call('SMEMBERS', PROCS)) do
  local p = redis.call('HMGET', key('proc', pid), 'job', 'gang')
  if not p[2] or p[2] == '' then count(p[1]) end
end
for _, gid in ipairs(redis.call('SMEMBERS', GANGS)) do count(redis.call('HGET', key('gang', gid), 'job')) end
for _, t in ipairs(redis.call('SMEMBERS', key('tenants'))) do
  redis.call('HSET', key('tenant', t), 'running', running[t] or 0)
end
fill(now)
return 'updated'
