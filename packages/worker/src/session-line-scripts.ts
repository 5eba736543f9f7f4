import { luaScript as script } from '@agentkit/storage-redis/connection';

/**
 * Takes a place in the session's line. KEYS: line, meta. ARGV: job id, `reject` or `queue`, ttl seconds.
 * Returns `{seq, head, ahead}` (the job's sequence number, the head, how many jobs are ahead), or
 * `{0, head, ahead}` when the line is not empty and the mode is `reject`.
 */
export const RESERVE = script(`
local ahead = redis.call('LLEN', KEYS[1])
if ARGV[2] == 'reject' and ahead > 0 then
  return {0, redis.call('LINDEX', KEYS[1], 0), ahead}
end
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('RPUSH', KEYS[1], ARGV[1])
local head = redis.call('LINDEX', KEYS[1], 0)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return {seq, head, ahead}
`);

/**
 * Where a job stands in its session's line. KEYS: line, meta. ARGV: job id. Returns `{place, head,
 * interruptedThrough}`: place 1 at the head, 0 behind `head`, -1 not in the line (its run is over).
 */
export const PLACE = script(`
local head = redis.call('LINDEX', KEYS[1], 0)
local interrupted = tonumber(redis.call('HGET', KEYS[2], 'int') or '0')
if head == ARGV[1] then return {1, head, interrupted} end
if head and redis.call('LPOS', KEYS[1], ARGV[1]) then return {0, head, interrupted} end
return {-1, head or '', interrupted}
`);

/** Leaves the line. KEYS: line. ARGV: job id. Returns the new head, or false. */
export const LEAVE = script(`
redis.call('LREM', KEYS[1], 1, ARGV[1])
return redis.call('LINDEX', KEYS[1], 0)
`);

/** Removes a stale head (its job is gone or over). KEYS: line. ARGV: job id. Returns 1 if removed. */
export const DROP_HEAD = script(`
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then
  redis.call('LPOP', KEYS[1])
  return 1
end
return 0
`);

/**
 * Marks every job in the line as interrupted (those with a sequence number up to the newest). KEYS: line,
 * meta. Returns the head, or false when the line is empty (nothing to interrupt).
 */
export const INTERRUPT = script(`
local head = redis.call('LINDEX', KEYS[1], 0)
if not head then return false end
redis.call('HSET', KEYS[2], 'int', redis.call('HGET', KEYS[2], 'seq') or '0')
return head
`);

/**
 * Counts a job as running for its user unless the user has `max` running already. KEYS: the user's
 * set. ARGV: job id, ttl ms, max. Entries expire (a worker that died does not hold a place forever).
 * Returns 1 when the job may run.
 */
export const ENTER_USER = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`);
