-- sweep_cancel: ends every trial of a sweep that has not ended (running ones are killed by
-- their agents) and the sweep with them; a sweep an older build left stuck (a trial whose end
-- was never counted) is finished too.
-- KEYS[1] a key of the pool (it routes the call: lib/core.lua).  ARGV: prefix, sweep id, reason, retention seconds
-- Returns 'CANCELLED', {'ENDED', state} or 'NOSWEEP'.
--- @include "ends"
local sid = ARGV[2]
local state = redis.call('HGET', key('sweep', sid), 'state')
if not state then return 'NOSWEEP' end
if state ~= 'RUNNING' then return {'ENDED', state} end
local now, retention = now_ms(), tonumber(ARGV[4])
sweep_stop(sid, 'CANCELLED', ARGV[3], now, retention)
-- every trial has ended now, so the last one finished the sweep; unless a trial's end was cut
-- short by an older build's error (a NaN score) and never counted: then it is finished here
if (redis.call('HGET', key('sweep', sid), 'finishedAt') or '') == '' then
  sweep_finish(sid, now, retention)
end
return 'CANCELLED'
