-- drop: a processor leaves Redis (it deregistered, or the manager found it lost): the job it holds
-- goes back to its queue or fails, its gang goes with it. deregister.lua and lost.lua differ only
-- in whether the job is charged the attempt.
--- @include "ends"

-- Removes processor pid, which holds job jid (or '') in gang gid (or ''). The job, if it is still
-- ASSIGNED or RUNNING there (a gang member's: on the attempt its token names), is requeued
-- (charge: the attempt counts; else it is given back) or failed with reason when no attempt is
-- left, and the gang's other members are told to stop it. Returns the job's new state
-- ('QUEUED', 'FAILED') or ''.
-- Keys: wp:{type}:proc:{id} W (deleted), wp:{type}:inbox:{id} W (deleted), wp:{type}:procs W, wp:{type}:idle RW,
--   wp:{type}:warmth RW (unidle); wp:{type}:job:{jobId} R, then requeue's (end_job's when no attempt is left);
--   a gang's: stop_members' and gang_member_gone's; then fill's (idle processors take queued jobs).
local function drop_processor(pid, jid, gid, token, reason, charge, now, retention_s)
  local result = ''
  if jid ~= '' then
    local j = redis.call('HMGET', key('job', jid), 'state', 'attempts')
    if (j[1] == 'ASSIGNED' or j[1] == 'RUNNING') and (gid == '' or j[2] == token) then
      result = requeue(jid, reason, charge, now, retention_s)
      if gid ~= '' then stop_members(gid, jid, pid) end
    end
  end
  redis.call('DEL', key('proc', pid), key('inbox', pid))
  redis.call('SREM', PROCS, pid)
  unidle(pid, now)
  if gid ~= '' then gang_member_gone(gid, pid, now) end
  fill(now) -- a requeued job may find another idle processor at once
  return result
end
