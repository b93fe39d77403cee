-- heartbeat: an agent says it is alive, and which job (and token) it is running, if any.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id or '', token or ''
-- Returns the processor's state; 'UNKNOWN' when Redis does not know the processor (the agent
-- registers again); 'FENCED' when the job the agent runs is no longer its own (it was requeued
-- after this processor was given up for lost): the agent stops it, and its report would be refused.
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:proc:{id}                  RW  the processor ARGV[2]: state, job, token read; hb written
-- Publishes: nothing.
local pkey = key('proc', ARGV[2])
local s = redis.call('HMGET', pkey, 'state', 'job', 'token')
if not s[1] then return 'UNKNOWN' end
redis.call('HSET', pkey, 'hb', now_ms())
if ARGV[3] ~= '' and (s[2] ~= ARGV[3] or s[3] ~= ARGV[4]) then return 'FENCED' end
return s[1]
