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

  it('keeps a parsed value that is plain JSON (transforms to JSON values are fine)', async () => {
    const trimmed = z.object({ name: z.string().transform((s) => s.trim()), note: z.string().optional() });
    expect(await validateWithStandardSchema(trimmed, { name: ' Ada ' })).toEqual({
      ok: true,
      value: { name: 'Ada' },
    });
  });

  it('reports an output that is not plain JSON as a schema problem (its type would lie after storage)', async () => {
    const cases = [
      [
        z.object({ at: z.string().transform((s) => new Date(s)) }),
        { at: '2026-01-02T03:04:05.000Z' },
        '$.at',
        'a Date',
      ],
      [z.object({ m: z.string().transform((s) => new Map([[s, 1]])) }), { m: 'k' }, '$.m', 'a Map'],
      [z.object({ n: z.number().transform((n) => BigInt(n)) }), { n: 1 }, '$.n', 'a bigint'],
      [
        z.object({ xs: z.array(z.number()).transform((xs) => [...xs, Number.NaN]) }),
        { xs: [] },
        '$.xs[0]',
        'NaN',
      ],
    ] as const;
    for (const [schema, input, path, what] of cases) {
      const result = await validateWithStandardSchema(schema, input);
      expect(result).toMatchObject({ ok: false, schemaProblem: true });
      expect(!result.ok && result.error).toBe(
        `SchemaError: The structuredSchema's output is not plain JSON: ${path} is ${what}. Structured outputs are stored in the agent state as JSON, so the schema's output type must be JSON too (e.g. an ISO date string instead of a transform to Date).`,
      );
    }
  });

  it('turns a throwing validator into an error text', async () => {
    const throwing = z.object({ a: z.string() }).superRefine(() => {
      throw new Error('boom');
    });
    expect(await validateWithStandardSchema(throwing, { a: 'x' })).toEqual({
      ok: false,
      error: 'Error: boom',
    });
  });
});
