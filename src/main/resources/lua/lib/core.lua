-- core: the pool's key prefix and its fixed keys, the server clock, which job states are ends.
-- In front of every script (Script.source); the scripts call it with
--   KEYS[1] = a key of the pool: it routes the call to the pool's hash slot. The manager passes
--             the pool hash wp:{<type>}:pool; an agent its processors set wp:{<type>}:procs, since
--             its ACL user may only read the pool hash and Redis checks a script's KEYS for writing
--   ARGV[1] = the pool's key prefix wp:{<type>}:
-- and build every key of that pool from the prefix, so they share one slot.

local P = ARGV[1]
-- Keys: none (names a key of the pool: the prefix, then the parts joined by ':').
local function key(...) return P .. table.concat({...}, ':') end
local POOL = key('pool')
local IDLE = key('idle')
local QUEUE = key('queue')
local JOBS = key('jobs')
local PROCS = key('procs')
local GANGS = key('gangs')

-- Keys: none (the server clock, TIME).
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The end states, as the protocol writes them: the scripts keep this list of their own (Lua has no
-- enum to share); JobStatesTests holds it to Java's JobState.ended(), and everything above the
-- protocol (the API's "ended", the dashboard, the clients) reads that instead of listing them.
-- Keys: none.
local function ended(state)
  return state == 'SUCCEEDED' or state == 'FAILED' or state == 'CANCELLED' or state == 'TIMED_OUT'
    or state == 'EARLY_STOPPED'
end

-- Wakes whoever follows a job (GET /jobs/{id}/events, /logs?follow=true): the job's id on its
-- pool's KeySchema.changed channel, after it started, went back to its queue, logged or reported.
-- Keys: none; publishes the id on wp:{type}:changed.
local function changed(jid)
  redis.call('PUBLISH', P .. 'changed', jid)
end
