export { commandsSent } from './commands-sent';
export { deleteByPrefix, keysByPrefix, REDIS_URL, uniquePrefix } from './keys';
export { type RedisCluster, startRedisCluster } from './redis-cluster';
export { freePort, type RedisProcess, startRedisServer } from './redis-server';
