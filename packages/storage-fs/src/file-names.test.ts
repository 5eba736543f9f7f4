import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileSegment } from './file-names';

describe('fileSegment', () => {
  it('escapes everything but [a-z0-9_-], upper-case letters included', () => {
    expect(fileSegment('user_1-a')).toBe('_user_1-a');
    expect(fileSegment('Alice')).toBe('_%41lice');
    expect(fileSegment('..')).toBe('_%2E%2E');
    expect(fileSegment('a/b\\c')).toBe('_a%2Fb%5Cc');
    expect(fileSegment('con')).toBe('_con');
    expect(fileSegment('é')).toBe('_%C3%A9');
  });

  it('hashes names longer than 200 bytes', () => {
    const long = fileSegment('x'.repeat(300));
    expect(long).toMatch(/^~[0-9a-f]{64}$/);
    expect(fileSegment('x'.repeat(299))).not.toBe(long);
  });

  it('is one-to-one even on case-insensitive filesystems, and yields only safe names', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1 }),
        fc.string({ unit: 'grapheme', minLength: 1 }),
        (a, b) => {
          const sa = fileSegment(a);
          expect(sa).toMatch(/^(_[a-z0-9_%A-F-]+|~[0-9a-f]{64})$/);
          expect(sa.length).toBeLessThanOrEqual(201);
          if (a !== b) expect(sa.toLowerCase()).not.toBe(fileSegment(b).toLowerCase());
        },
      ),
    );
  });
});
