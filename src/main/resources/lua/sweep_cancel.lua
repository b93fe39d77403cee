-- sweep_cancel: ends every trial of a sweep that has not ended (running ones are killed by
-- their agents) and the sweep with them.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, sweep id, reason, retention seconds
-- Returns 'CANCELLED', {'ENDED', state} or 'NOSWEEP'.
--- @include "ends"
local sid = ARGV[2]
local state = redis.call('HGET', key('sweep', sid), 'state')
if not state then return 'NOSWEEP' end
if state ~= 'RUNNING' then return {'ENDED', state} end
sweep_stop(sid, 'CANCELLED', ARGV[3], now_ms(), tonumber(ARGV[4]))
return 'CANCELLED'
