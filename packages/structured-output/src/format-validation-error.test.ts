import { describe, expect, it } from 'vitest';
import { formatIssuePath, formatValidationError, pointerToPath } from './format-validation-error';

describe('formatIssuePath', () => {
  it('writes JSON paths', () => {
    expect(formatIssuePath([])).toBe('$');
    expect(formatIssuePath(['city'])).toBe('$.city');
    expect(formatIssuePath(['items', 0, 'name'])).toBe('$.items[0].name');
    expect(formatIssuePath(['odd key', 'a.b'])).toBe('$["odd key"]["a.b"]');
  });
});

describe('formatValidationError', () => {
  it('joins every issue with its path', () => {
    expect(
      formatValidationError([
        { path: ['temperature'], message: 'must be number' },
        { path: [], message: "must have required property 'city'" },
      ]),
    ).toBe(
      "ValidationError: Structured output validation failed with error: $.temperature: must be number; $: must have required property 'city'",
    );
  });
});

describe('pointerToPath', () => {
  it('decodes JSON pointers', () => {
    expect(pointerToPath('')).toEqual([]);
    expect(pointerToPath('/items/0/name')).toEqual(['items', 0, 'name']);
    expect(pointerToPath('/a~1b/c~0d/01')).toEqual(['a/b', 'c~d', '01']);
  });
});
