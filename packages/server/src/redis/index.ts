export { RedisEventLog } from './redis-event-log';
export type { RedisEventLogOptions } from './redis-event-log-options';
