-- warmth: what a pool's learned keep-alive learns from, in its KeySchema.warmth hash: its demand
-- 'd' (jobs stored or released and not ended), when each demand level was last left ('b:<level>':
-- the demand fell below it), and per level a histogram of the gaps until the level was reached
-- again ('h:<level>:<bin>', with 'n:<level>' samples); also the arrivals that found a warm
-- processor ('warm') or none ('cold'), and the idle time of processors that stopped idling
-- ('idleMs'), and ended jobs by end state ('e:<STATE>', written by end_job). Bins are logarithmic, so seconds and hours are told apart alike: bin 0 holds gaps
-- under 100 ms, bin i those from 100 ms * 1.02^(i-1), the last (WARMTH_BINS) those past about
-- 28 h. dev.warmpool.policy.Warmth reads it with the same constants (and replays it, Recorder).
local WARMTH = key('warmth')
local WARMTH_LEVELS = 64
local WARMTH_BINS = 698
local WARMTH_HALVE = 4000 -- a level's counts are halved there: recent demand weighs more

-- Keys: none.
local function gap_bin(ms)
  if ms < 100 then return 0 end
  return math.min(WARMTH_BINS, math.floor(math.log(ms / 100) / math.log(1.02)) + 1)
end

-- Keys: wp:{type}:warmth RW (the level's h:<level>:<bin>, n:<level>).
local function halve(level)
  local total = 0
  for b = 0, WARMTH_BINS do
    local f = 'h:' .. level .. ':' .. b
    local v = tonumber(redis.call('HGET', WARMTH, f) or '0')
    if v > 0 then
      local h = math.floor(v / 2)
      if h > 0 then redis.call('HSET', WARMTH, f, h) else redis.call('HDEL', WARMTH, f) end
      total = total + h
    end
  end
  redis.call('HSET', WARMTH, 'n:' .. level, total)
end

-- A job joins the pool's demand (stored, or a sweep's trial released); warm: a processor took it at once.
-- Keys: wp:{type}:warmth RW (warm or cold, d, b:<level>, h:<level>:<bin>, n:<level>).
local function demand_up(now, warm)
  redis.call('HINCRBY', WARMTH, warm and 'warm' or 'cold', 1)
  local d = redis.call('HINCRBY', WARMTH, 'd', 1)
  if d > WARMTH_LEVELS then return end
  local left = redis.call('HGET', WARMTH, 'b:' .. d)
  if not left then return end
  redis.call('HDEL', WARMTH, 'b:' .. d)
  redis.call('HINCRBY', WARMTH, 'h:' .. d .. ':' .. gap_bin(now - tonumber(left)), 1)
  if redis.call('HINCRBY', WARMTH, 'n:' .. d, 1) >= WARMTH_HALVE then halve(d) end
end

-- A job left the pool's demand (it ended).
-- Keys: wp:{type}:warmth RW (d, b:<level>).
local function demand_down(now)
  local d = redis.call('HINCRBY', WARMTH, 'd', -1)
  if d < 0 then
    redis.call('HSET', WARMTH, 'd', 0) -- jobs from before the pool counted (an upgrade): settles once it is quiet
    return
  end
  if d < WARMTH_LEVELS then redis.call('HSET', WARMTH, 'b:' .. (d + 1), now) end
end

-- Processor pid stops idling (taken, retired, lost, gone): its idle time counts. since: its idle-since, or nil.
-- Keys: wp:{type}:warmth W (idleMs).
local function idle_end(since, now)
  if since then redis.call('HINCRBY', WARMTH, 'idleMs', math.max(0, now - tonumber(since))) end
end

-- Takes pid off the idle set, counting its idle time.
-- Keys: wp:{type}:idle RW, wp:{type}:warmth W (idleMs).
local function unidle(pid, now)
  idle_end(redis.call('ZSCORE', IDLE, pid), now)
  redis.call('ZREM', IDLE, pid)
end

-- Histograms of how long jobs waited in the queue ('qw:') and ran ('rt:'), in the same hash:
-- 'qw:<i>' counts the waits up to TIMING_BOUNDS[i] ms and over the bound before it (i past the
-- last: longer), 'qw:n' all of them and 'qw:ms' their sum. PoolStats reads them each scrape
-- for warmpool_job_queue_wait_seconds and warmpool_job_run_seconds (PoolStats.BOUNDS_MS: the same bounds).
local TIMING_BOUNDS = {5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 900000, 3600000}

-- Keys: wp:{type}:warmth W (<prefix><i>, <prefix>n, <prefix>ms).
local function observe(prefix, ms)
  ms = math.max(0, ms)
  local i = #TIMING_BOUNDS + 1
  for b = 1, #TIMING_BOUNDS do
    if ms <= TIMING_BOUNDS[b] then i = b; break end
  end
  redis.call('HINCRBY', WARMTH, prefix .. i, 1)
  redis.call('HINCRBY', WARMTH, prefix .. 'n', 1)
  redis.call('HINCRBY', WARMTH, prefix .. 'ms', ms)
end
