import { storeScript } from './store-script';

/*
 * One script per lease operation, each on the session's lease hash alone (KEYS[1]), timed by the Redis
 * server's clock so holders on machines with different clocks agree on when a lease ends. Replies start
 * with a status: 'OK', 'BUSY' (owner, expiresAt), 'LOST' (reason), 'NONE' or 'CORRUPT' (reason).
 */

/**
 * Grant the lease unless another holder's is live. The token is the larger of the last token + 1 and the
 * server's time in ms, so it grows even after the hash expired. ARGV: ttl ms, owner, grant id (field
 * `g`: what {@link DROP_GRANT} names). Returns {'OK', token, expiresAt}.
 */
export const ACQUIRE_LEASE = storeScript(`
local lease = readLease(KEYS[1])
if type(lease) == 'string' then return {'CORRUPT', lease} end
local now = nowMs()
if lease.e > now then return {'BUSY', lease.o, lease.e} end
local token = math.max(lease.t + 1, now)
local expires = now + tonumber(ARGV[1])
writeLease(KEYS[1], token, ARGV[2], expires)
redis.call('HSET', KEYS[1], 'g', ARGV[3])
return {'OK', token, expires}
`);

/**
 * End the lease granted by the acquire with this grant id, if it is still the live one: for an acquire
 * whose caller gave up (aborted, timed out) after the grant may have landed. ARGV: grant id. Returns 1
 * when it ended one.
 */
export const DROP_GRANT = storeScript(`
local lease = readLease(KEYS[1])
if type(lease) == 'string' then return 0 end
if lease.e <= nowMs() or redis.call('HGET', KEYS[1], 'g') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'e', '0')
return 1
`);

/** Extend the current lease by ttl ms from now. ARGV: token, ttl ms. Returns {'OK', token, owner, expiresAt}. */
export const RENEW_LEASE = storeScript(`
local lease = readLease(KEYS[1])
if type(lease) == 'string' then return {'CORRUPT', lease} end
local token = tonumber(ARGV[1])
local now = nowMs()
if lease.e <= now or lease.t ~= token then return {'LOST', lostReason(lease, token)} end
local expires = now + tonumber(ARGV[2])
writeLease(KEYS[1], token, lease.o, expires)
return {'OK', token, lease.o, expires}
`);

/** End the current lease now (the token count stays). ARGV: token. Returns {'OK'} or {'NONE'} when not current. */
export const RELEASE_LEASE = storeScript(`
local lease = readLease(KEYS[1])
if type(lease) == 'string' then return {'CORRUPT', lease} end
if lease.e <= nowMs() or lease.t ~= tonumber(ARGV[1]) then return {'NONE'} end
redis.call('HSET', KEYS[1], 'e', '0')
return {'OK'}
`);

/** The live lease. Returns {'OK', token, owner, expiresAt} or {'NONE'}. */
export const GET_LEASE = storeScript(`
local lease = readLease(KEYS[1])
if type(lease) == 'string' then return {'CORRUPT', lease} end
if lease.e <= nowMs() then return {'NONE'} end
return {'OK', lease.t, lease.o, lease.e}
`);
