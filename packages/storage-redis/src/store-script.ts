import { type LuaScript, luaScript } from './connection/redis-script';

/**
 * How long a lease hash outlives the later of its expiry and its token (as a time in ms). Tokens are at
 * least the server's time in ms when granted, so once the hash is gone the next grant is still larger
 * than every token before it; the margin covers small steps back of the server's clock.
 */
const LEASE_KEY_GRACE_MS = 3_600_000;

/*
 * Helpers every script may use. Scripts check every key's type and every field they rely on before their
 * first write, and answer with a status table instead of raising errors (a Redis script is not rolled back
 * when it fails half-way), so a refused or failed write leaves nothing behind.
 *
 * Lease hash fields: t last token granted (0 = never), o owner, e expiry in ms by the server's clock
 * (0 = released). The hash outlives the session record, so tokens keep growing across deletes.
 */
const PRELUDE = `
local LEASE_KEY_GRACE_MS = ${LEASE_KEY_GRACE_MS}
local ISO_TIME = '^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%dZ$'
local WRONG_RECORD = 'its Redis key holds a value of the wrong type (not a hash).'
local WRONG_INDEX = 'the index of its user and agent holds a value of the wrong type (not a sorted set); delete that key and each session indexes itself again on its next write.'
local WRONG_LEASE = 'its lease key holds a value of the wrong type (not a hash); delete that key to lease the session again.'
local BAD_LEASE = 'its lease record is invalid (token, owner or expiry missing or not a number); delete that key to lease the session again.'

local function keyType(key) return redis.call('TYPE', key).ok end
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function int(n) return string.format('%.0f', n) end
-- A positive integer in decimal, exact as a double.
local function isCount(s) return type(s) == 'string' and #s <= 15 and string.match(s, '^[1-9]%d*$') ~= nil end
local function show(s)
  if not s then return 'null' end
  if #s > 40 then s = string.sub(s, 1, 37) .. '...' end
  return cjson.encode(s)
end

-- The lease of a session as {t, o, e}, or why its hash is corrupt.
local function readLease(key)
  local kind = keyType(key)
  if kind == 'none' then return {t = 0, o = '', e = 0} end
  if kind ~= 'hash' then return WRONG_LEASE end
  local f = redis.call('HMGET', key, 't', 'o', 'e')
  if not isCount(f[1]) or not f[2] or not (f[3] == '0' or isCount(f[3])) then return BAD_LEASE end
  return {t = tonumber(f[1]), o = f[2], e = tonumber(f[3])}
end
local function lostReason(lease, token)
  if lease.t == token then
    if lease.e == 0 then return 'it was released' end
    return 'it expired'
  end
  if lease.t > token then return 'a later lease replaced it' end
  return 'it was never granted'
end
-- A grant or renewal: the hash lives until no token it holds can matter any more.
local function writeLease(key, token, owner, expires)
  redis.call('HSET', key, 't', int(token), 'o', owner, 'e', int(expires))
  redis.call('PEXPIREAT', key, int(math.max(expires, token) + LEASE_KEY_GRACE_MS))
end
-- nil when a write under token ('' = none) may go ahead, else the refusal to answer with.
local function fence(key, token)
  local lease = readLease(key)
  if type(lease) == 'string' then return {'CORRUPT', lease} end
  if token == '' and lease.e == 0 then return nil end
  local live = lease.e > nowMs()
  if token == '' then
    if live then return {'BUSY', lease.o, lease.e} end
    return nil
  end
  local t = tonumber(token)
  if live and lease.t == t then return nil end
  return {'LOST', lostReason(lease, t)}
end
`;

/** A script of the store: the shared helpers above its body. */
export function storeScript(body: string): LuaScript {
  return luaScript(`${PRELUDE}\n${body.trim()}\n`);
}
