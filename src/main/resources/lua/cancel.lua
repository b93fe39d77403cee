-- cancel: a queued (or pending) job leaves its queue; an assigned or running job ends CANCELLED
-- (or EARLY_STOPPED, when a tuner outside pruned it) now and its agent is told to kill the
-- process (the processor stays busy until the agent reports).
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, job id, reason, retention seconds, end state
-- Returns {'CANCELLED', previous state}, {'ENDED', state}, or 'NOJOB'.
--- @include "ends"
local jid = ARGV[2]
local state = redis.call('HGET', key('job', jid), 'state')
if not state then return 'NOJOB' end
if ended(state) then return {'ENDED', state} end
stop_job(jid, ARGV[5] == 'EARLY_STOPPED' and 'EARLY_STOPPED' or 'CANCELLED', ARGV[3], now_ms(), tonumber(ARGV[4]))
return {'CANCELLED', state}
