import { ConfigError } from '@agentkit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkKeyPrefix, escapeKeyPart, unescapeKeyPart } from './key-parts';

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

describe('checkKeyPrefix', () => {
  it('accepts any prefix without braces, and refuses one that would change the hash tag', () => {
    expect(() => checkKeyPrefix('app:prod')).not.toThrow();
    for (const bad of ['bad{prefix}', 'a}', 42 as unknown as string])
      expect(() => checkKeyPrefix(bad)).toThrow(ConfigError);
  });
});
