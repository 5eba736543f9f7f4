import { storeScript } from './store-script';

/*
 * Record hash fields: v version, c createdAt (ISO), u updatedAt (ISO), m metadata JSON, s state JSON,
 * x index member ("createdAtMs:escapedSessionId", 16 digits before the colon).
 *
 * Replies start with a status: 'OK', 'NOT_FOUND', 'CONFLICT' (actual version or ''), 'CORRUPT' (reason),
 * 'BUSY' (owner, expiresAt) or 'LOST' (reason).
 */

const RECORD_CHECKS = `
local function isMemberOf(x, escapedId)
  return type(x) == 'string' and string.match(x, '^%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d:') ~= nil
    and string.sub(x, 18) == escapedId
end
-- Why the fields {v, c} of an existing record cannot be written over, or nil. (A broken x only keeps the
-- record out of the index bookkeeping: it is neither re-indexed nor unindexed by it.)
local function badRecord(f)
  if not isCount(f[1]) then return 'its version ' .. show(f[1]) .. ' is not a positive integer.' end
  if not (f[2] and string.match(f[2], ISO_TIME)) then return 'its createdAt ' .. show(f[2]) .. ' is not a timestamp.' end
  return nil
end
local function isJsonObject(s)
  if not s or not string.match(s, '^%s*{') then return false end
  local ok, value = pcall(cjson.decode, s)
  return ok and type(value) == 'table'
end
-- The top-level shape of an AgentState (its full check runs where it is loaded).
local function looksLikeState(s)
  if not s or not string.match(s, '^%s*{') then return false end
  local ok, d = pcall(cjson.decode, s)
  return ok and type(d) == 'table' and type(d.schemaVersion) == 'number' and type(d.sessionId) == 'string'
    and type(d.context) == 'table'
end
`;

/**
 * Create or update a record, fenced by the session's lease and comparing the expected version, atomically.
 * KEYS: record, index, lease. ARGV: mode ('upsert' | 'update'), expected version ('' = none), now ISO, index
 * member for a new record, metadata JSON ('' = keep), state JSON ('' = keep), state JSON of a new record
 * without state, TTL seconds ('0' = none), lease token ('' = none).
 * Returns {'OK', version, createdAt, updatedAt, metadata-if-kept, state-if-kept} or a refusal.
 */
export const SAVE = storeScript(`
${RECORD_CHECKS}
local rec, idx = KEYS[1], KEYS[2]
local recType = keyType(rec)
if recType ~= 'none' and recType ~= 'hash' then return {'CORRUPT', WRONG_RECORD} end
local idxType = keyType(idx)
if idxType ~= 'none' and idxType ~= 'zset' then return {'CORRUPT', WRONG_INDEX} end
local refused = fence(KEYS[3], ARGV[9])
if refused then return refused end
local expected = ARGV[2]
local ttl = tonumber(ARGV[8])
local function slideTtl()
  if ttl > 0 then
    redis.call('EXPIRE', rec, ttl)
    redis.call('EXPIRE', idx, ttl)
  end
end
if recType == 'none' then
  if ARGV[1] == 'update' then return {'NOT_FOUND'} end
  if expected ~= '' and expected ~= '0' then return {'CONFLICT', ''} end
  local meta = ARGV[5]
  if meta == '' then meta = '{}' end
  local state = ARGV[6]
  if state == '' then state = ARGV[7] end
  redis.call('HSET', rec, 'v', '1', 'c', ARGV[3], 'u', ARGV[3], 'm', meta, 's', state, 'x', ARGV[4])
  redis.call('ZADD', idx, 0, ARGV[4])
  slideTtl()
  return {'OK', 1, ARGV[3], ARGV[3], '', ''}
end
local cur = redis.call('HMGET', rec, 'v', 'c', 'x')
local bad = badRecord(cur)
if bad then return {'CORRUPT', bad} end
local v = tonumber(cur[1])
if expected ~= '' and tonumber(expected) ~= v then return {'CONFLICT', v} end
local fields = {'v', int(v + 1), 'u', ARGV[3]}
local keptMeta, keptState = '', ''
if ARGV[5] == '' then
  keptMeta = redis.call('HGET', rec, 'm')
  if not isJsonObject(keptMeta) then return {'CORRUPT', 'its metadata is not a JSON object.'} end
else
  fields[#fields + 1] = 'm'
  fields[#fields + 1] = ARGV[5]
end
if ARGV[6] == '' then
  keptState = redis.call('HGET', rec, 's')
  if not looksLikeState(keptState) then
    return {'CORRUPT', 'its state is not a JSON object with a schemaVersion, a sessionId and a context.'}
  end
else
  fields[#fields + 1] = 's'
  fields[#fields + 1] = ARGV[6]
end
redis.call('HSET', rec, unpack(fields))
-- Re-index a session whose index entry was lost (evicted, or the index was deleted).
if isMemberOf(cur[3], string.sub(ARGV[4], 18)) then redis.call('ZADD', idx, 'NX', 0, cur[3]) end
slideTtl()
return {'OK', v + 1, cur[2], ARGV[3], keptMeta, keptState}
`);

/** Load a record and slide its TTL. KEYS: record, index. ARGV: TTL seconds. Returns HGETALL's flat list. */
export const LOAD_AND_TOUCH = storeScript(`
local fields = redis.call('HGETALL', KEYS[1])
if #fields > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return fields
`);

/**
 * Delete a record and its index entry, fenced by the lease. A record of the wrong type is deleted too
 * (that is how a corrupt session is cleared). KEYS: record, index, lease. ARGV: lease token ('' = none),
 * the escaped session id. Returns {'OK', 1 | 0 (did not exist)} or a refusal.
 */
export const DELETE = storeScript(`
${RECORD_CHECKS}
local recType = keyType(KEYS[1])
local idxType = keyType(KEYS[2])
if idxType ~= 'none' and idxType ~= 'zset' then return {'CORRUPT', WRONG_INDEX} end
local refused = fence(KEYS[3], ARGV[1])
if refused then return refused end
if recType == 'none' then return {'OK', 0} end
if recType == 'hash' and idxType == 'zset' then
  local member = redis.call('HGET', KEYS[1], 'x')
  -- A corrupt member could name another session's entry: only our own is removed.
  if isMemberOf(member, ARGV[2]) then redis.call('ZREM', KEYS[2], member) end
end
redis.call('DEL', KEYS[1])
return {'OK', 1}
`);

/**
 * One page of the index, newest first, with each session's summary fields; prunes index entries whose
 * record is gone or was created again under another member. KEYS: index. ARGV: limit, exclusive upper
 * bound ('+' or '(' .. member), record key prefix (the pair's prefix plus 's:'). Returns {'OK', rows…}
 * with rows of six (member, kind, version, createdAt, updatedAt, metadata) for up to limit + 1 sessions
 * (one more tells that another page exists), kind being 'ok' or 'wrongtype' (the record is not a hash);
 * or {'CORRUPT', reason}.
 */
export const LIST = storeScript(`
${RECORD_CHECKS}
local kind = keyType(KEYS[1])
if kind == 'none' then return {'OK'} end
if kind ~= 'zset' then return {'CORRUPT', WRONG_INDEX} end
local want = tonumber(ARGV[1]) + 1
local max = ARGV[2]
local out = {'OK'}
local found = 0
while found < want do
  local batch = redis.call('ZREVRANGEBYLEX', KEYS[1], max, '-', 'LIMIT', 0, want - found)
  if #batch == 0 then break end
  for _, member in ipairs(batch) do
    max = '(' .. member
    local sep = string.find(member, ':', 1, true) or 0
    local escapedId = string.sub(member, sep + 1)
    local key = ARGV[3] .. escapedId
    local t = keyType(key)
    local row = nil
    if t == 'hash' then
      local f = redis.call('HMGET', key, 'v', 'c', 'u', 'm', 'x')
      -- An entry is stale when the record names another member of its own (it was created again).
      if f[5] == member or not isMemberOf(f[5], escapedId) then row = {'ok', f[1], f[2], f[3], f[4]} end
    elseif t ~= 'none' then
      row = {'wrongtype', false, false, false, false}
    end
    if row then
      found = found + 1
      out[#out + 1] = member
      for i = 1, 5 do out[#out + 1] = row[i] end
    else
      redis.call('ZREM', KEYS[1], member)
    end
  end
end
return out
`);
