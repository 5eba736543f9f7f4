export { QueueRunner, DEFAULT_QUEUE_NAME, type QueueRunnerOptions } from './queue-runner';
export { startWorker, type ReplyJobResult, type ReplyWorker } from './start-worker';
export type { StartWorkerOptions } from './start-worker-options';
export type { QueueConnection } from './redis-connection';
export { REPLY_JOB, retryReplyId, type ReplyJobData } from './reply-job';
