import { Agent, getBlocks } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { fromJsonSchema, structuredOutput } from './index';

/** A schema whose property names are also names on `Object.prototype`. */
const schema = fromJsonSchema<{ constructor: string; path: string }>({
  type: 'object',
  properties: { constructor: {}, path: { type: 'string' } },
  required: ['constructor', 'path'],
});

describe('structured output from a hostile model: prototype keys', () => {
  it('the JSON Schema validator counts only own properties as present', async () => {
    expect(await schema['~standard'].validate({ path: 'a' })).toMatchObject({
      issues: [{ message: "must have required property 'constructor'" }],
    });
    expect(await schema['~standard'].validate({ constructor: 'x', path: 'a' })).toEqual({
      value: { constructor: 'x', path: 'a' },
    });
  });

  it('rejects a missing `constructor` and a `__proto__` key, then accepts the corrected output', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('GenerateStructuredOutput', '{"path":"a"}', 'c1')],
      [
        toolCallChunk(
          'GenerateStructuredOutput',
          '{"constructor":"x","path":"a","__proto__":{"isAdmin":true}}',
          'c2',
        ),
      ],
      [toolCallChunk('GenerateStructuredOutput', '{"constructor":"x","path":"a"}', 'c3')],
      textChunks('unused'),
    ]);
    const agent = new Agent({ name: 'a', model, plugins: [structuredOutput()] });
    const msg = await agent.reply('go', { structuredSchema: schema });
    expect(getBlocks(msg, 'tool_result').map((r) => r.state)).toEqual(['error', 'error', 'success']);
    expect(msg.finishedReason).toBe('completed');
    expect(msg.structuredOutput).toEqual({ constructor: 'x', path: 'a' });
    expect(Object.getPrototypeOf(msg.structuredOutput)).toBe(Object.prototype);
  });
});
