import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fileSegment } from './file-segment';
import { sha256Hex } from './sha256';

describe('fileSegment', () => {
  it('escapes everything but [a-z0-9_-], upper-case letters included', () => {
    expect(fileSegment('user_1-a')).toBe('_user_1-a');
    expect(fileSegment('Alice')).toBe('_%41lice');
    expect(fileSegment('..')).toBe('_%2E%2E');
    expect(fileSegment('a/b\\c')).toBe('_a%2Fb%5Cc');
    expect(fileSegment('é')).toBe('_%C3%A9');
    expect(fileSegment('')).toBe('_');
  });

  it('gives names that one folder on macOS or Windows keeps apart, and no device names', () => {
    // Case-insensitive filesystems fold case; Windows drops trailing dots and spaces and reserves devices.
    const fold = (name: string) => name.toLowerCase().replace(/[. ]+$/, '');
    const pairs = [
      ['Alice', 'alice'],
      ['abc.', 'abc'],
      ['abc ', 'abc'],
      ['ABC', 'abc'],
      ['x.', 'x..'],
    ];
    for (const [a, b] of pairs) expect(fold(fileSegment(a!)), `${a} / ${b}`).not.toBe(fold(fileSegment(b!)));
    const device = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
    for (const id of ['CON', 'con', 'NUL', 'nul.txt', 'com1', 'COM1', 'LPT9', 'aux', 'prn'])
      expect(fileSegment(id)).not.toMatch(device);
    for (const id of ['a.', 'a ', '.', '..', ' ', 'a\0b', 'a:b', 'a*?"<>|'])
      expect(fileSegment(id)).toMatch(/^_[a-z0-9_%A-F-]+$/);
  });

  it('hashes names longer than 200 characters with the SHA-256 of the id', () => {
    const id = 'x'.repeat(300);
    expect(fileSegment(id)).toBe(`~${createHash('sha256').update(id, 'utf8').digest('hex')}`);
    expect(fileSegment('x'.repeat(299))).not.toBe(fileSegment(id));
    expect(fileSegment('é'.repeat(40))).toBe(`~${createHash('sha256').update('é'.repeat(40)).digest('hex')}`);
  });
});

describe('sha256Hex', () => {
  it('matches node:crypto for every length around the block boundaries and for random input', () => {
    const lengths = [...Array.from({ length: 200 }, (_, i) => i), 447, 448, 511, 512, 513, 4096, 100_003];
    for (const length of lengths) {
      const bytes = randomBytes(length);
      expect(sha256Hex(bytes), `length ${length}`).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(sha256Hex(new Uint8Array())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(sha256Hex(new TextEncoder().encode('abc'))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });
});
