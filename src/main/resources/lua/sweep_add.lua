-- sweep_add: adds one trial to an external sweep (its driver chose the configuration: a notebook's
-- Optuna study, a search of the caller's own) and releases it at once when fewer than 'parallelism'
-- of the sweep's trials are out (else it waits PENDING, released as others end), in one step.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, sweep id, config JSON,
--   retention seconds (a sweep whose pool was deleted is finished with it), the driver's key for the trial or '',
--   the caller's name, '1' when the caller is an admin (else only the sweep's submitter adds its trials)
-- A key the sweep has seen answers with that trial, whatever the sweep's state now (a driver that retries or
-- restarts adds each trial once).
-- The trial's job fields are those the sweep stored for its trials at submit ('trialFields': priority,
-- timeout, attempts, args, env, submitter); its id is '<sweep id>-<index>', the index counted here.
-- Returns {'ADDED', job id, index, state, '1' when the key named a trial added before else '0'}, 'NOSWEEP',
--   {'FORBIDDEN', submitter}, 'NOTEXTERNAL', {'KEYCONFLICT', the key's trial}, {'ENDED', state} or {'FULL', total}.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:pool                       R   state: a deleted pool's sweep is stopped, no trial added
--   wp:{type}:sweep:{id}                 RW  state, trialFields, total, tenant, parallelism, active; counts as it ends
--   wp:{type}:sweep:{id}:trials          RW  its length is the new trial's index; the trial joins it
--   wp:{type}:sweep:{id}:pending         RW  the trial joins it; released trials leave it
--   wp:{type}:sweep:{id}:keys            RW  the driver's key: read (a trial added before), written
--   wp:{type}:job:{jobId}                RW  the trial stored PENDING; released: QUEUED, queuedAt, then ASSIGNED or queued
--   wp:{type}:jobs                       W   the trial joins the listing index
--   wp:{type}:seq                        RW  the submission counter
--   wp:{type}:proc:{id}                  RW  as sweep_put's, for a released trial (lib/dispatch.lua)
--   wp:{type}:inbox:{id}                 W   likewise
--   wp:{type}:idle                       RW  likewise
--   wp:{type}:tq:{tenant}                W   likewise
--   wp:{type}:waiting                    W   likewise
--   wp:{type}:tenant:{tenant}            RW  likewise
--   wp:{type}:tenants                    W   likewise
--   wp:{type}:warmth                     RW  likewise
--   wp:{type}:gang:{id}                  RW  likewise
--   wp:{type}:queue                      W   a released trial's place (as sweep_put's)
--   wp:{type}:job:{jobId}:events         W   a deleted pool's stopped sweep: its trials' expire with it (sweep_finish)
--   wp:{type}:demand                     W   likewise: its demand taken off
--   wp:{type}:drivers                    W   likewise: the sweep leaves it
--   wp:{type}:sweeps                     RW  likewise: ended sweeps past retention trimmed
--   wp:{type}:sweep:{id}:trial:{jobId}   RW  likewise: a stopped trial's curve
--   wp:{type}:sweep:{id}:at:{step}       W   likewise: deleted
--   wp:{type}:sweep:{id}:steps           RW  likewise: read and deleted
--   wp:{type}:sweep:{id}:journal         W   likewise: expires with it
-- Publishes: wp:{type}:ended (the sweep's trials stopped with a deleted pool).
--- @include "ends"
local sid = ARGV[2]
local skey = key('sweep', sid)
local s = redis.call('HMGET', skey, 'state', 'trialFields', 'total', 'tenant', 'submittedBy')
if not s[1] then return 'NOSWEEP' end
if ARGV[7] ~= '1' and (s[5] or '') ~= ARGV[6] then return {'FORBIDDEN', s[5] or ''} end
if (s[2] or '') == '' then return 'NOTEXTERNAL' end
local tkey = ARGV[5] or ''
if tkey ~= '' then
  -- the driver added this trial before (it retried, or a restarted driver adopts it): the same trial, if it
  -- asks for the same configuration (another one under a known key is a driver mixing up its studies)
  local known = redis.call('HGET', key('sweep', sid, 'keys'), tkey)
  if known then
    local k = redis.call('HMGET', key('job', known), 'trial', 'state', 'config')
    if k[3] and k[3] ~= ARGV[3] then return {'KEYCONFLICT', known} end
    return {'ADDED', known, k[1] or '0', k[2] or 'CANCELLED', '1'}
  end
end
if s[1] ~= 'RUNNING' then return {'ENDED', s[1]} end
local now = now_ms()
if redis.call('HGET', POOL, 'state') ~= 'ACTIVE' then
  local retention = tonumber(ARGV[4])
  sweep_stop(sid, 'CANCELLED', 'the pool was deleted', now, retention)
  if (redis.call('HGET', skey, 'finishedAt') or '') == '' then sweep_finish(sid, now, retention) end
  return {'ENDED', 'CANCELLED'}
end
local index = redis.call('LLEN', key('sweep', sid, 'trials'))
if index >= tonumber(s[3]) then return {'FULL', s[3]} end
local common = cjson.decode(s[2])
local priority = tonumber(field_in(common, 1, 'priority') or '0')
local jid = sid .. '-' .. index
local score = (1000 - priority) * 1e12 + redis.call('INCR', key('seq'))
redis.call('HSET', key('job', jid), 'id', jid, 'state', 'PENDING', 'attempts', 0, 'completions', 0,
  'submittedAt', now, 'score', string.format('%.0f', score), 'config', ARGV[3], 'sweep', sid, 'trial', index,
  'tenant', s[4], unpack(common))
redis.call('ZADD', JOBS, now, jid)
redis.call('RPUSH', key('sweep', sid, 'trials'), jid)
redis.call('RPUSH', key('sweep', sid, 'pending'), jid)
if tkey ~= '' then redis.call('HSET', key('sweep', sid, 'keys'), tkey, jid) end
sweep_release(sid, now)
return {'ADDED', jid, tostring(index), redis.call('HGET', key('job', jid), 'state'), '0'}
