-- log: lines a running job printed, appended in one call (the agent batches them) to the job's
-- event stream, which keeps about the last 'cap' entries and expires with the job.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, processor id, job id, token, cap (entries, about), line...
-- Returns 'OK', or {'STALE', reason} when the job is no longer this processor's to run (the
-- lines are dropped: a fenced copy of the job must not write into the log of the one that runs).
-- Keys (R read, W written; each built from the prefix ARGV[1], so all in KEYS[1]'s hash slot):
--   wp:{type}:proc:{id}                  R   the processor ARGV[2]: job, token
--   wp:{type}:job:{jobId}                R   the job ARGV[3]: state
--   wp:{type}:job:{jobId}:events         W   the job's lines appended (XADD, capped)
-- Publishes: wp:{type}:changed (the job's id).
local pid, jid, token = ARGV[2], ARGV[3], ARGV[4]
local p = redis.call('HMGET', key('proc', pid), 'job', 'token')
if p[1] ~= jid or p[2] ~= token then return {'STALE', 'processor holds ' .. tostring(p[1])} end
local state = redis.call('HGET', key('job', jid), 'state')
if state ~= 'RUNNING' then return {'STALE', 'job is ' .. tostring(state)} end
local stream, cap = key('job', jid, 'events'), ARGV[5]
for i = 6, #ARGV do
  redis.call('XADD', stream, 'MAXLEN', '~', cap, '*', 'log', ARGV[i])
end
changed(jid)
return 'OK'
