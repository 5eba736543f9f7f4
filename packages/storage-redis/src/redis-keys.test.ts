import { ConfigError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { RedisKeys } from './redis-keys';

describe('RedisKeys', () => {
  it('puts all keys of a user–agent pair under one hash tag', () => {
    const keys = new RedisKeys('app');
    const key = { userId: 'u:1', agentId: '{a}', sessionId: 's*' };
    expect(keys.record(key)).toBe('app:{u%3A1:%7Ba%7D}:s:s%2A');
    expect(keys.index('u:1', '{a}')).toBe('app:{u%3A1:%7Ba%7D}:sessions');
  });

  it('orders index members by creation time, then id', () => {
    const a = RedisKeys.member(1_700_000_000_000, 'b');
    const b = RedisKeys.member(1_700_000_000_001, 'a');
    expect(a < b).toBe(true);
    expect(a).toBe('0001700000000000:b');
  });

  it('rejects a prefix that would change the hash tag', () => {
    expect(() => new RedisKeys('bad{prefix}')).toThrow(ConfigError);
  });
});
