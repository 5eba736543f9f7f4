import { ConfigError } from '@agentkit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RedisKeys, escapeKeyPart, unescapeKeyPart } from './redis-keys';

describe('escapeKeyPart', () => {
  it('keeps plain ids readable and escapes everything with a meaning in keys', () => {
    expect(escapeKeyPart('user_123-a.b')).toBe('user_123-a.b');
    expect(escapeKeyPart('a:b')).toBe('a%3Ab');
    expect(escapeKeyPart('{x}')).toBe('%7Bx%7D');
    expect(escapeKeyPart("*!~'()")).toBe('%2A%21%7E%27%28%29');
    expect(escapeKeyPart('%41')).toBe('%2541');
    expect(escapeKeyPart('é')).toBe('%C3%A9');
  });

  it('is one-to-one and its output holds only [A-Za-z0-9_.%-]', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1 }),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        (a, b) => {
          const ea = escapeKeyPart(a);
          expect(ea).toMatch(/^[A-Za-z0-9_.%-]+$/);
          expect(unescapeKeyPart(ea)).toBe(a);
          if (a !== b) expect(ea).not.toBe(escapeKeyPart(b));
        },
      ),
    );
  });
});

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
