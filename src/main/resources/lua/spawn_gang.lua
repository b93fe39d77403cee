-- spawn_gang: records a gang the runtime is about to start, all members STARTING, unless the
-- pool is draining or already has maxSize gangs.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, gang id, then per member: member id, role, index in the role
-- Returns 1 when recorded, 0 when refused.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state, maxSize
--   wp:{type}:procs                      W   every member joins it
--   wp:{type}:proc:{id}                  W   each member: id, state STARTING, job, since, startedAt, hb, gang, role,
--                                            rank
--   wp:{type}:gangs                      RW  counted; the gang ARGV[2] joins it
--   wp:{type}:gang:{id}                  W   the gang: id, state STARTING, members, lead, since, startedAt, job
-- Publishes: nothing.
if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then return 0 end
if redis.call('SCARD', GANGS) >= tonumber(redis.call('HGET', POOL, 'maxSize')) then return 0 end
local now = now_ms()
local gid = ARGV[2]
local ids = {}
local lead = ''
for i = 3, #ARGV, 3 do
  local m = ARGV[i]
  table.insert(ids, m)
  if lead == '' and ARGV[i + 1] ~= 'ps' then lead = m end
  redis.call('HSET', key('proc', m), 'id', m, 'state', 'STARTING', 'job', '', 'since', now, 'startedAt', now,
    'hb', now, 'gang', gid, 'role', ARGV[i + 1], 'rank', ARGV[i + 2])
  redis.call('SADD', PROCS, m)
end
redis.call('HSET', key('gang', gid), 'id', gid, 'state', 'STARTING', 'members', table.concat(ids, ','),
  'lead', lead, 'since', now, 'startedAt', now, 'job', '')
redis.call('SADD', GANGS, gid)
return 1
