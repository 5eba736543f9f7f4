import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateWithStandardSchema } from './standard-schema-validation';

describe('validateWithStandardSchema (zod in process)', () => {
  const schema = z
    .object({
      city: z.string(),
      temperature: z.number().default(20),
      tags: z.array(z.string()).default(() => ['fresh']),
    })
    .refine((v) => v.city !== 'Atlantis', { message: 'no such city', path: ['city'] });

  it('fills defaults (including factories) and drops unknown keys', async () => {
    expect(await validateWithStandardSchema(schema, { city: 'Hangzhou', extra: 1 })).toEqual({
      ok: true,
      value: { city: 'Hangzhou', temperature: 20, tags: ['fresh'] },
    });
  });

  it('runs refinements', async () => {
    expect(await validateWithStandardSchema(schema, { city: 'Atlantis' })).toEqual({
      ok: false,
      error: 'ValidationError: Structured output validation failed with error: $.city: no such city',
    });
  });

  it('formats every issue with its path', async () => {
    const result = await validateWithStandardSchema(schema, { city: 3, tags: ['a', 2] });
    expect(result).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: ' +
        '$.city: Invalid input: expected string, received number; $.tags[1]: Invalid input: expected string, received number',
    });
  });

  it('stores the parsed value as JSON', async () => {
    const withDate = z.object({ at: z.string().transform((s) => new Date(s)) });
    expect(await validateWithStandardSchema(withDate, { at: '2026-01-02T03:04:05.000Z' })).toEqual({
      ok: true,
      value: { at: '2026-01-02T03:04:05.000Z' },
    });
  });

  it('turns a throwing validator and a non-JSON result into error texts', async () => {
    const throwing = z.object({ a: z.string() }).superRefine(() => {
      throw new Error('boom');
    });
    expect(await validateWithStandardSchema(throwing, { a: 'x' })).toEqual({
      ok: false,
      error: 'Error: boom',
    });
    const bigint = z.object({ n: z.number().transform((n) => BigInt(n)) });
    const result = await validateWithStandardSchema(bigint, { n: 1 });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(
      /^ValidationError: The structured output is not JSON-serialisable/,
    );
  });
});
