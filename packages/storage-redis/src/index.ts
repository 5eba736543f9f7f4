export { RedisStorage } from './redis-storage';
export type { RedisStorageOptions } from './redis-storage-options';
export { escapeKeyPart } from './connection/key-parts';
