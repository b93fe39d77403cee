-- retire: the reconciler gives back an idle processor (or, in a gang pool, an idle gang), only
-- if it is still idle and has been idle since at most ARGV[3] (one that took a job since the
-- plan was made stays).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor or gang id, latest idle-since (ms) that may be retired
-- Returns 1 when retired, 0 otherwise.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2] (state, since), or the gang's members: retired
--                                            (state DRAINING, job, since)
--   wp:{type}:inbox:{id}                 W   'retire' to the processor, or to each member of the gang
--   wp:{type}:idle                       RW  the processor or gang leaves it (its idle-since read)
--   wp:{type}:warmth                     W   idle time of the processors that stop idling
--   wp:{type}:gang:{id}                  RW  whether ARGV[2] is a gang; its state, since, members; set DRAINING
-- Publishes: nothing.
--- @include "gang"
local id = ARGV[2]
local h = key('proc', id)
if redis.call('EXISTS', key('gang', id)) == 1 then h = key('gang', id) end
local s = redis.call('HMGET', h, 'state', 'since')
if s[1] ~= 'IDLE' or tonumber(s[2]) > tonumber(ARGV[3]) then return 0 end
retire_id(id, now_ms())
return 1
