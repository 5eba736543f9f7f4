import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent';
import type { ToolResultBlock } from './blocks';
import { checkJsonSchema } from './json-schema-check';
import type { JSONSchema } from './json';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';
import { defineTool } from './define-tool';
import type { Tool } from './tool';
import { parseToolInput } from './tool-input';

const closedSchema: JSONSchema = {
  type: 'object',
  properties: { path: { type: 'string' } },
  required: ['path'],
  additionalProperties: false,
};

/** The attack of the security review (issue 20), as the raw arguments a model streams. */
const ATTACK = '{"path":"a.txt","__proto__":{"isAdmin":true},"hasOwnProperty":"gotcha"}';

/** What a tool that spreads its input over defaults saw, per call. */
interface Seen {
  isAdmin: unknown;
  dryRun: unknown;
  protoIsObject: boolean;
}

/** A tool that does what plenty of real tools do: `Object.assign(defaults, input)`. */
function deleteTool(seen: Seen[], inputSchema: Tool['inputSchema'] = closedSchema) {
  return defineTool<{ path: string }>({
    name: 'delete_file',
    description: 'Deletes a file (a dry run unless the caller is an admin).',
    inputSchema,
    execute(input) {
      const options = Object.assign({ dryRun: true }, input) as Record<string, unknown>;
      seen.push({
        isAdmin: options.isAdmin,
        dryRun: options.dryRun,
        protoIsObject: Object.getPrototypeOf(options) === Object.prototype,
      });
      return 'done';
    },
  });
}

async function runCall(tool: Tool, rawArgs: string) {
  const model = new ScriptedModel([[toolCallChunk(tool.name, rawArgs, 'c1')], textChunks('ok')]);
  const agent = new Agent({ name: 'a', model, tools: [tool] });
  const msg = await agent.reply('go');
  const result = msg.content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
  const text = result.output.map((b) => (b.type === 'text' ? b.text : '')).join('');
  return { msg, result, text };
}

describe('tool input from a hostile model', () => {
  it('never lets a __proto__ key reach a tool that spreads its input (the review attack, end to end)', async () => {
    const seen: Seen[] = [];
    const { msg, result, text } = await runCall(deleteTool(seen), ATTACK);
    expect(seen).toEqual([]); // the tool never ran
    expect(result.state).toBe('error');
    expect(text).toMatch(/^Input validation failed for tool 'delete_file': .*'__proto__'/);
    expect(msg.finishedReason).toBe('completed'); // the model saw the error and answered
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined(); // nothing global was touched
  });

  it('rejects __proto__ even when the schema allows extra properties, and at any depth', async () => {
    const open: JSONSchema = { type: 'object', properties: { path: { type: 'string' } } };
    for (const raw of [
      ATTACK,
      '{"path":"a.txt","\\u005f_proto__":{"isAdmin":true}}',
      '{"path":"a.txt","nested":[{"deep":{"__proto__":{"isAdmin":true}}}]}',
    ]) {
      const seen: Seen[] = [];
      const { result } = await runCall(deleteTool(seen, open), raw);
      expect(seen, raw).toEqual([]);
      expect(result.state, raw).toBe('error');
    }
  });

  it('rejects __proto__ before a Standard Schema that keeps unknown keys sees it', async () => {
    const seen: Seen[] = [];
    const { result } = await runCall(deleteTool(seen, z.looseObject({ path: z.string() })), ATTACK);
    expect(seen).toEqual([]);
    expect(result.state).toBe('error');
  });

  it('still runs a tool whose input is clean, with its defaults intact', async () => {
    const seen: Seen[] = [];
    const { result } = await runCall(deleteTool(seen), '{"path":"a.txt"}');
    expect(result.state).toBe('success');
    expect(seen).toEqual([{ isAdmin: undefined, dryRun: true, protoIsObject: true }]);
  });
});

describe('checkJsonSchema', () => {
  it('counts only declared own properties: inherited names are unexpected under additionalProperties: false', () => {
    const value = JSON.parse(ATTACK) as unknown;
    expect(checkJsonSchema(closedSchema, value)).toEqual([
      "$: unexpected property '__proto__'",
      "$: unexpected property 'hasOwnProperty'",
    ]);
    for (const key of ['constructor', 'toString', 'valueOf', 'isPrototypeOf'])
      expect(checkJsonSchema(closedSchema, JSON.parse(`{"path":"a","${key}":1}`)), key).toEqual([
        `$: unexpected property '${key}'`,
      ]);
  });

  it('treats a required property named like an Object.prototype member as missing when it is not own', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: { constructor: {}, toString: { type: 'string' } },
      required: ['constructor', 'toString'],
    };
    expect(checkJsonSchema(schema, {})).toEqual([
      "$: missing required property 'constructor'",
      "$: missing required property 'toString'",
    ]);
    expect(checkJsonSchema(schema, JSON.parse('{"constructor":1,"toString":"x"}'))).toEqual([]);
    expect(checkJsonSchema(schema, JSON.parse('{"constructor":1,"toString":2}'))).toEqual([
      '$.toString: must be string, got number',
    ]);
  });

  it('reads boolean property schemas: false accepts nothing, true anything', () => {
    const schema: JSONSchema = { type: 'object', properties: { old: false, any: true } };
    expect(checkJsonSchema(schema, { any: [1] })).toEqual([]);
    expect(checkJsonSchema(schema, { old: 1 })).toEqual(['$.old: is not allowed']);
  });
});

describe('parseToolInput', () => {
  it('finds __proto__ keys in wide and deep inputs without overflowing', async () => {
    const tool = deleteTool([], { type: 'object' });
    const wide = JSON.stringify({ items: Array.from({ length: 200_000 }, (_, i) => i) });
    expect(await parseToolInput(tool, wide)).toMatchObject({ ok: true });
    const deep = `${'{"a":'.repeat(5000)}{"__proto__":1}${'}'.repeat(5000)}`;
    expect(await parseToolInput(tool, deep)).toMatchObject({ ok: false });
  });
});
