import { Agent, type Msg } from '@agentkit/core';
import { ScriptedModel, toolCallChunk } from '@agentkit/core/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { fromJsonSchema, structuredOutput } from './index';

// Type-level tests: checked by `tsc` (the package typecheck includes test files); the runtime part only
// makes sure the values behind the types are what the types say.
describe('structuredOutput types', () => {
  it('types structuredOutput with the schema output type', async () => {
    const model = new ScriptedModel([[toolCallChunk('GenerateStructuredOutput', { city: 'Hangzhou' })]]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const schema = z.object({
      city: z.string(),
      temperature: z.number().default(20),
      note: z.string().optional(),
    });
    const result = await agent.reply('Weather?', { structuredSchema: schema });

    expectTypeOf(result).toEqualTypeOf<
      Msg<{ city: string; temperature: number; note?: string | undefined }>
    >();
    expectTypeOf(result.structuredOutput).toEqualTypeOf<{
      city: string;
      temperature: number;
      note?: string | undefined;
    } | null>();
    // @ts-expect-error: a key the schema does not have
    result.structuredOutput?.humidity;
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 20 });
  });

  it('types the final Msg of replyStream with the schema output type', async () => {
    const model = new ScriptedModel([[toolCallChunk('GenerateStructuredOutput', { id: 7 })]]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const schema = z.object({ id: z.number() });
    let final: Msg<{ id: number }> | undefined;
    for await (const item of agent.replyStream('Id?', { structuredSchema: schema, yieldFinalMsg: true })) {
      if (!('type' in item)) {
        expectTypeOf(item).toEqualTypeOf<Msg<{ id: number }>>();
        final = item;
      }
    }
    expectTypeOf(final?.structuredOutput).toEqualTypeOf<{ id: number } | null | undefined>();
    expect(final?.structuredOutput).toEqual({ id: 7 });
  });

  it('types a reply without a schema as unknown, and fromJsonSchema with the named type', () => {
    const agent = new Agent({
      name: 'assistant',
      model: new ScriptedModel([]),
      plugins: [structuredOutput()],
    });
    const plain = () => agent.reply('hi');
    expectTypeOf(plain).returns.resolves.toEqualTypeOf<Msg<unknown>>();
    const schema = fromJsonSchema<{ id: number }>({
      type: 'object',
      properties: { id: { type: 'integer' } },
    });
    const typed = () => agent.reply('hi', { structuredSchema: schema });
    expectTypeOf(typed).returns.resolves.toEqualTypeOf<Msg<{ id: number }>>();
    expectTypeOf(structuredOutput).returns.toHaveProperty('name');
  });
});
