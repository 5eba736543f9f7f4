import { createHash } from 'node:crypto';

/** A Lua script, run with EVALSHA (falling back to EVAL once per server when the script is not cached yet). */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

function script(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/*
 * Record hash fields: v version, c createdAt (ISO), u updatedAt (ISO), m metadata JSON, s state JSON,
 * x index member ("createdAtMs:escapedSessionId").
 */

/**
 * Create or update a record, comparing the expected version atomically.
 * KEYS: record, index. ARGV: mode ('upsert' | 'update'), expected version ('' = none), now ISO, index member
 * for a new record, metadata JSON ('' = keep), state JSON ('' = keep), state JSON of a new record without
 * state, TTL seconds ('0' = none).
 * Returns {'OK', version, createdAt, updatedAt, metadata-if-kept, state-if-kept}, {'NOT_FOUND'},
 * {'CONFLICT', actualVersion | ''} or {'CORRUPT', reason}.
 */
export const SAVE = script(`
local cur = redis.call('HMGET', KEYS[1], 'v', 'c', 'x')
local expected = ARGV[2]
local ttl = tonumber(ARGV[8])
local function slideTtl()
  if ttl > 0 then
    redis.call('EXPIRE', KEYS[1], ttl)
    redis.call('EXPIRE', KEYS[2], ttl)
  end
end
if not cur[1] then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {'CORRUPT', 'the record has no version field'} end
  if ARGV[1] == 'update' then return {'NOT_FOUND'} end
  if expected ~= '' and expected ~= '0' then return {'CONFLICT', ''} end
  local meta = ARGV[5]
  if meta == '' then meta = '{}' end
  local state = ARGV[6]
  if state == '' then state = ARGV[7] end
  redis.call('HSET', KEYS[1], 'v', '1', 'c', ARGV[3], 'u', ARGV[3], 'm', meta, 's', state, 'x', ARGV[4])
  redis.call('ZADD', KEYS[2], 0, ARGV[4])
  slideTtl()
  return {'OK', 1, ARGV[3], ARGV[3], '', ''}
end
if expected ~= '' and expected ~= cur[1] then return {'CONFLICT', cur[1]} end
local v = tonumber(cur[1])
if not v then return {'CORRUPT', 'the version field is not a number'} end
local fields = {'v', tostring(v + 1), 'u', ARGV[3]}
-- A given value ('' = none) is written; otherwise the stored one is kept and returned.
local function replaceOrKeep(field, value)
  if value == '' then return redis.call('HGET', KEYS[1], field) or '' end
  fields[#fields + 1] = field
  fields[#fields + 1] = value
  return ''
end
local meta = replaceOrKeep('m', ARGV[5])
local state = replaceOrKeep('s', ARGV[6])
redis.call('HSET', KEYS[1], unpack(fields))
-- Re-index a session whose index entry was lost (e.g. evicted under memory pressure).
if cur[3] then redis.call('ZADD', KEYS[2], 'NX', 0, cur[3]) end
slideTtl()
return {'OK', v + 1, cur[2] or '', ARGV[3], meta, state}
`);

/** Load a record and slide its TTL. KEYS: record, index. ARGV: TTL seconds. Returns HGETALL's flat list. */
export const LOAD_AND_TOUCH = script(`
local fields = redis.call('HGETALL', KEYS[1])
if #fields > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return fields
`);

/** Delete a record and its index entry. KEYS: record, index. Returns 1 when it existed, else 0. */
export const DELETE = script(`
local ok, member = pcall(redis.call, 'HGET', KEYS[1], 'x')
local n = redis.call('DEL', KEYS[1])
if ok and member then redis.call('ZREM', KEYS[2], member) end
return n
`);

/**
 * One page of the index, newest first, with each session's summary fields; prunes index entries whose
 * record expired. KEYS: index. ARGV: limit, exclusive upper bound ('+' or '(' .. member), record key
 * prefix (the pair's prefix plus 's:'). Returns a flat list of (member, version, createdAt, updatedAt,
 * metadata) for up to limit + 1 sessions (one more tells that another page exists); a record that is
 * not a valid hash comes back with version '!'.
 */
export const LIST = script(`
local want = tonumber(ARGV[1]) + 1
local max = ARGV[2]
local out = {}
local found = 0
while found < want do
  local batch = redis.call('ZREVRANGEBYLEX', KEYS[1], max, '-', 'LIMIT', 0, want - found)
  if #batch == 0 then break end
  for _, member in ipairs(batch) do
    max = '(' .. member
    local sep = string.find(member, ':', 1, true)
    local key = ARGV[3] .. string.sub(member, (sep or 0) + 1)
    local ok, f = pcall(redis.call, 'HMGET', key, 'v', 'c', 'u', 'm')
    if not ok then
      f = {'!', '', '', ''}
    elseif not f[1] then
      if redis.call('EXISTS', key) == 1 then f = {'!', '', '', ''} else f = nil end
    end
    if f then
      found = found + 1
      out[#out + 1] = member
      out[#out + 1] = f[1]
      out[#out + 1] = f[2] or ''
      out[#out + 1] = f[3] or ''
      out[#out + 1] = f[4] or ''
    else
      redis.call('ZREM', KEYS[1], member)
    end
  end
end
return out
`);
