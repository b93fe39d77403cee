-- heartbeat: an agent says it is alive. Returns the processor's state, or 'UNKNOWN' when
-- Redis does not know it (the agent then registers again).
-- KEYS[1] pool hash.  ARGV: prefix, processor id
local pkey = key('proc', ARGV[2])
local state = redis.call('HGET', pkey, 'state')
if not state then return 'UNKNOWN' end
redis.call('HSET', pkey, 'hb', now_ms())
return state
