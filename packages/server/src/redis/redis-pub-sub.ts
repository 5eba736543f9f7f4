import type { Cluster, Redis } from 'ioredis';
import { withDeadline } from '@agentkit/storage-redis/connection';

/**
 * `shard`: a channel of one session, published on the node of its stream (sharded pub/sub on a Redis
 * Cluster, so a message costs that node only); `broadcast`: a channel every process hears.
 */
export type ChannelKind = 'shard' | 'broadcast';

interface Channel {
  kind: ChannelKind;
  state: 'pending' | 'active' | 'failed';
}

/** What the pub/sub connection reports. */
export interface PubSubHandlers {
  message(channel: string, message: string): void;
  /** The connection was (re)established and its channels subscribed again: messages may have been lost. */
  reconnected(): void;
}

/** Options of {@link RedisPubSub}. */
export interface RedisPubSubOptions {
  connectionName: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
}

/**
 * The pub/sub connection of an event log, shared by all its followers and interrupt listeners: one
 * connection however many sessions are followed (on a Redis Cluster, ioredis's subscriber connections:
 * one per master for sharded channels, one for broadcast channels). Created on first use from the
 * command client (`duplicate()`); the channels it should hear are kept here and subscribed again after
 * every reconnect.
 */
export class RedisPubSub {
  private connection: Redis | Cluster | null = null;
  private readonly channels = new Map<string, Channel>();
  private closed = false;

  constructor(
    private readonly source: Redis | Cluster,
    private readonly options: RedisPubSubOptions,
    private readonly handlers: PubSubHandlers,
  ) {}

  /**
   * Subscribes to `channel`; resolves once its messages reach this process. The channel stays wanted
   * until {@link unsubscribe} even when this attempt fails: it is subscribed again after a reconnect
   * and by {@link retryFailed}.
   */
  async subscribe(channel: string, kind: ChannelKind): Promise<void> {
    if (this.closed) throw new Error('The pub/sub connection is closed.');
    const entry: Channel = { kind, state: 'pending' };
    this.channels.set(channel, entry);
    await this.send(channel, entry);
  }

  /** Stops hearing `channel`. */
  unsubscribe(channel: string): void {
    const entry = this.channels.get(channel);
    if (!entry) return;
    this.channels.delete(channel);
    const connection = this.connection;
    if (!connection) return;
    const sent =
      entry.kind === 'shard' && connection.isCluster
        ? connection.sunsubscribe(channel)
        : connection.unsubscribe(channel);
    sent.catch(() => {}); // not connected: the channel is gone with the connection anyway
  }

  /** Subscribes again to the channels whose last attempt failed. */
  retryFailed(): void {
    for (const [channel, entry] of this.channels)
      if (entry.state === 'failed') this.send(channel, entry).catch(() => {});
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    const connection = this.connection;
    this.connection = null;
    connection?.disconnect();
  }

  private async send(channel: string, entry: Channel): Promise<void> {
    entry.state = 'pending';
    const connection = this.open();
    try {
      const sent =
        entry.kind === 'shard' && connection.isCluster
          ? connection.ssubscribe(channel)
          : connection.subscribe(channel);
      await withDeadline(
        sent,
        this.options.connectTimeoutMs + this.options.commandTimeoutMs,
        undefined,
        () => new Error(`Subscribing to ${channel} timed out.`),
      );
      if (this.channels.get(channel) === entry) entry.state = 'active';
    } catch (error) {
      if (this.channels.get(channel) === entry) entry.state = 'failed';
      throw error;
    }
  }

  private open(): Redis | Cluster {
    if (this.connection) return this.connection;
    const { connectionName, connectTimeoutMs, commandTimeoutMs } = this.options;
    let connection: Redis | Cluster;
    if (this.source.isCluster) {
      const cluster = this.source as Cluster;
      connection = cluster.duplicate([], {
        shardedSubscribers: true,
        lazyConnect: true,
        enableOfflineQueue: true,
        // ioredis would prefix sharded channel names like keys; channels are published unprefixed.
        keyPrefix: '',
        redisOptions: {
          ...cluster.options.redisOptions,
          keyPrefix: '',
          connectionName,
          connectTimeout: connectTimeoutMs,
        },
      });
      // ioredis subscribes its subscriber connections again itself; then check for what was missed.
      connection.on('ready', () => this.handlers.reconnected());
      connection.on('subscribersReady', () => this.handlers.reconnected());
    } else {
      connection = (this.source as Redis).duplicate({
        connectionName,
        keyPrefix: '',
        lazyConnect: true,
        // Queued while connecting; failed at the first lost connection (then `ready` subscribes again).
        enableOfflineQueue: true,
        maxRetriesPerRequest: 0,
        autoResubscribe: false,
        autoResendUnfulfilledCommands: false,
        connectTimeout: connectTimeoutMs,
        commandTimeout: commandTimeoutMs,
      });
      connection.on('ready', () => this.resubscribeAll(connection as Redis));
    }
    // Errors surface through the commands and the follower's safety checks; without a listener ioredis
    // would print every reconnect failure.
    connection.on('error', () => {});
    connection.on('message', (channel: string, message: string) => this.handlers.message(channel, message));
    connection.on('smessage', (channel: string, message: string) => this.handlers.message(channel, message));
    this.connection = connection;
    if (connection.status === 'wait') connection.connect().catch(() => {});
    return connection;
  }

  /** After a (re)connect of a single Redis: subscribes to every wanted channel, then reports it. */
  private async resubscribeAll(connection: Redis): Promise<void> {
    const wanted = [...this.channels];
    for (let i = 0; i < wanted.length; i += 500) {
      const chunk = wanted.slice(i, i + 500);
      try {
        await connection.subscribe(...chunk.map(([channel]) => channel));
        for (const [channel, entry] of chunk)
          if (this.channels.get(channel) === entry) entry.state = 'active';
      } catch {
        for (const [channel, entry] of chunk)
          if (this.channels.get(channel) === entry) entry.state = 'failed';
      }
    }
    if (!this.closed) this.handlers.reconnected();
  }
}
