import { luaScript as script } from '@agentkit/storage-redis/connection';

/**
 * Appends events to a session's stream, refreshes its TTL and announces the newest id, in one round trip.
 * KEYS[1] the stream; ARGV: maxlen, ttl seconds, `PUBLISH` or `SPUBLISH`, the wake-up channel, then one
 * JSON event per entry. Returns the ids.
 */
export const APPEND = script(`
local ids = {}
for i = 5, #ARGV do
  ids[#ids + 1] = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[i])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call(ARGV[3], ARGV[4], ids[#ids])
return ids
`);

/**
 * The id of the newest entry a reader can use (its `e` field is a JSON object with a string `type`),
 * looking back no further than ARGV[1] (an `XRANGE` bound: `-` or `(id`), or false. Skipping corrupt
 * entries here keeps a follower from waking forever for an entry that `read` skips. Only the id crosses
 * the network.
 */
export const LAST_READABLE = script(`
local top = '+'
while true do
  local batch = redis.call('XREVRANGE', KEYS[1], top, ARGV[1], 'COUNT', 16)
  if #batch == 0 then return false end
  for _, entry in ipairs(batch) do
    local fields = entry[2]
    for i = 1, #fields, 2 do
      if fields[i] == 'e' then
        local ok, event = pcall(cjson.decode, fields[i + 1])
        if ok and type(event) == 'table' and type(event['type']) == 'string' then return entry[1] end
      end
    end
  end
  top = '(' .. batch[#batch][1]
end
`);
