-- register: an agent announces its processor. A new (or re-registering) processor takes
-- the best queued job or turns idle; a gang member turns idle, and the gang with it once every
-- member has registered. A processor that is already known keeps its state.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, os pid, host, address ('' or host:port)
-- Returns {'OK', state, job id or '', pool spec JSON}, 'NOPOOL' (the agent then exits), or
-- 'NOGANG' (a gang member Redis has forgotten, after it lost its data: the agent exits, and
-- the reconciler starts a whole new gang).
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state (NOPOOL; a draining pool retires the processor), gang, spec
--   wp:{type}:procs                      W   the processor ARGV[2] joins it
--   wp:{type}:proc:{id}                  RW  the processor: state, gang read; id, pid, host, hb, registeredAt, addr,
--                                            startedAt, then its job or IDLE or DRAINING; its gang's members
--   wp:{type}:inbox:{id}                 W   'job <id> <token>' to the processor or every member of its gang, or
--                                            'retire'
--   wp:{type}:idle                       RW  the processor or its gang joins it (or leaves it, taking a job or retired)
--   wp:{type}:tq:{tenant}                RW  the next job (lib/tenants.lua's pick) is popped
--   wp:{type}:waiting                    RW  the tenants with queued jobs
--   wp:{type}:queue                      RW  jobs queued before tenants: moved to their tenants' queues
--   wp:{type}:tenant:{tenant}            RW  read for the pick; the job taken's: running
--   wp:{type}:tenants                    W   a tenant with a queued or running job joins it
--   wp:{type}:warmth                     W   idle time of a processor that stops idling
--   wp:{type}:job:{jobId}                RW  queued entries' state; the job taken: attempts, state ASSIGNED, processor,
--                                            assignedAt
--   wp:{type}:gang:{id}                  RW  the member's gang: state, members; idle, its job, or retired
-- Publishes: nothing.
--- @include "dispatch"
if not redis.call('HGET', POOL, 'state') then return 'NOPOOL' end
local pid = ARGV[2]
local pkey = key('proc', pid)
local now = now_ms()
local p = redis.call('HMGET', pkey, 'state', 'gang')
local state, gid = p[1], p[2] or ''
if redis.call('HGET', POOL, 'gang') == '1' and gid == '' then return 'NOGANG' end
redis.call('HSET', pkey, 'id', pid, 'pid', ARGV[3], 'host', ARGV[4], 'hb', now, 'registeredAt', now,
  'addr', ARGV[5] or '')
redis.call('SADD', PROCS, pid)
local spec = redis.call('HGET', POOL, 'spec') or '{}'
if state and state ~= 'STARTING' then
  return {'OK', state, redis.call('HGET', pkey, 'job') or '', spec}
end
if not state then redis.call('HSET', pkey, 'startedAt', now) end
local jid
if gid ~= '' then
  jid = member_free(pid, gid, now) -- a job the gang takes reaches every member's inbox
else
  jid = next_or_idle(pid, now)
end
return {'OK', redis.call('HGET', pkey, 'state'), jid, spec}
