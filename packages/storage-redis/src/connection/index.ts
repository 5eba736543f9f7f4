// `@agentkit/storage-redis/connection`: what packages built on RedisStorage's way of reaching Redis share
// with it (`@agentkit/server/redis`, `@agentkit/worker`): the connection options and the client they
// make, calls bounded by timeouts that fail with store errors, key escaping, scripts.
export { closeClient } from './close-client';
export { createRedisClient } from './create-redis-client';
export { checkKeyPrefix, escapeKeyPart, unescapeKeyPart } from './key-parts';
export { RedisConnection, type RedisConnectionSettings } from './redis-connection';
export type { RedisConnectionOptions } from './redis-connection-options';
export { type LuaScript, luaScript, runScript } from './redis-script';
export { toStoreError } from './to-store-error';
export { withDeadline } from './with-deadline';
