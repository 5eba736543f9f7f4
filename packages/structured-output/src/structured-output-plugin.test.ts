import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Agent,
  ConfigError,
  defineTool,
  getBlocks,
  getText,
  userConfirmResult,
  type AgentEvent,
  type Logger,
  type Msg,
  type ToolCallBlock,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, type RecordedRequest } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { STRUCTURED_OUTPUT_PLACEHOLDER } from './generate-structured-output-tool';
import { fromJsonSchema, structuredOutput } from './index';
import {
  GENERATE_STRUCTURED_OUTPUT_DESCRIPTION,
  STRUCTURED_OUTPUT_HINT_SOURCE,
  structuredOutputHint,
} from './texts';

const TOOL = 'GenerateStructuredOutput';
const PLUGIN = '@agentkit/structured-output';

const weather = z
  .object({
    city: z.string().describe('City name').meta({ title: 'City' }),
    temperature: z.number().default(20),
    tags: z.array(z.string()).default(() => []),
  })
  .meta({ title: 'WeatherReport' });

function recordingLogger(): Logger & { warnings: string[]; errors: unknown[][] } {
  const warnings: string[] = [];
  const errors: unknown[][] = [];
  return {
    warnings,
    errors,
    warn: (m: string) => warnings.push(m),
    error: (...args: unknown[]) => errors.push(args),
  };
}

function toolResults(msg: Msg) {
  return getBlocks(msg, 'tool_result').map((r) => ({
    name: r.name,
    state: r.state,
    text: r.output.map((o) => (o.type === 'text' ? o.text : '')).join(''),
  }));
}

const toolNames = (request: RecordedRequest) => request.tools.map((t) => t.name);

describe('structuredOutput plugin', () => {
  it('completes with the validated output: defaults filled and extras dropped in process', async () => {
    const model = new ScriptedModel([[toolCallChunk(TOOL, { city: 'Hangzhou', extra: 'dropped' })]]);
    const logger = recordingLogger();
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()], logger });
    const result = await agent.reply('Weather in Hangzhou?', { structuredSchema: weather });

    expect(result.finishedReason).toBe('completed');
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 20, tags: [] });
    expect(agent.state.reply?.iteration).toBe(1);
    expect(agent.state.reply?.finish).toEqual({
      structuredOutput: { city: 'Hangzhou', temperature: 20, tags: [] },
      text: STRUCTURED_OUTPUT_PLACEHOLDER,
    });
    expect(getText(result)).toBe(STRUCTURED_OUTPUT_PLACEHOLDER);
    // The schema is stored as JSON Schema, titles included.
    const stored = agent.state.reply?.data[PLUGIN] as { schema: Record<string, any> };
    expect(stored.schema).toEqual(weather['~standard'].jsonSchema.input({ target: 'draft-2020-12' }));
    expect(stored.schema.title).toBe('WeatherReport');
    expect(JSON.parse(JSON.stringify(agent.state)).reply.data[PLUGIN]).toEqual(stored);
    // The model saw the tool without titles, with the reference description.
    const tool = model.requests[0]!.tools.find((t) => t.name === TOOL)!;
    expect(tool.description).toBe(GENERATE_STRUCTURED_OUTPUT_DESCRIPTION);
    expect(JSON.stringify(tool.inputSchema)).not.toContain('"title"');
    expect(tool.inputSchema).toMatchObject({
      type: 'object',
      required: ['city'],
      properties: { city: { type: 'string' } },
    });
    expect(tool.inputSchema.$schema).toBeUndefined();
    // A persisted requirement hint came before the call, and the model saw it.
    const hints = getBlocks(result, 'hint');
    expect(hints.map((h) => [h.hint, h.source])).toEqual([
      [structuredOutputHint(false), STRUCTURED_OUTPUT_HINT_SOURCE],
    ]);
    expect(JSON.stringify(model.requests[0]!.messages)).toContain(
      "You're required to generate structured output",
    );
    expect(toolResults(result)).toEqual([
      { name: TOOL, state: 'success', text: 'Structured output generated successfully.' },
    ]);
    expect(logger.warnings).toEqual([]);
  });

  it('never ends on a text-only answer while the output is missing', async () => {
    const model = new ScriptedModel([
      textChunks('Let me think about it.'),
      textChunks('It is sunny, 25 degrees.'),
      [toolCallChunk(TOOL, { city: 'Hangzhou', temperature: 25 })],
    ]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const result = await agent.reply('Weather?', { structuredSchema: weather });
    expect(result.finishedReason).toBe('completed');
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 25, tags: [] });
    expect(model.callCount).toBe(3);
    expect(getBlocks(result, 'hint')).toHaveLength(3);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'auto']);
  });

  it('sends validation errors back to the model, which retries', async () => {
    const refined = weather.refine((v) => v.city !== 'Atlantis', { message: 'no such city', path: ['city'] });
    const model = new ScriptedModel([
      [toolCallChunk(TOOL, { city: 'Hangzhou', temperature: 'hot' })],
      [toolCallChunk(TOOL, { city: 'Atlantis', temperature: 30 })],
      [toolCallChunk(TOOL, { city: 'Hangzhou', temperature: 30 })],
    ]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const result = await agent.reply('Weather?', { structuredSchema: refined });

    expect(result.finishedReason).toBe('completed');
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 30, tags: [] });
    expect(model.callCount).toBe(3);
    const [typeError, refinement, success] = toolResults(result);
    // Layer 1: the kernel's JSON Schema check of the tool input.
    expect(typeError!.state).toBe('error');
    expect(typeError!.text).toMatch(
      /^Input validation failed for tool 'GenerateStructuredOutput': .*temperature/,
    );
    // Layer 2: the schema object itself (refinements run in process).
    expect(refinement).toEqual({
      name: TOOL,
      state: 'error',
      text: 'ValidationError: Structured output validation failed with error: $.city: no such city',
    });
    expect(success!.state).toBe('success');
    // The model saw its errors before retrying.
    expect(JSON.stringify(model.requests[2]!.messages)).toContain('no such city');
  });

  it('forces the call at maxIters: text, then a forced call → completed after 2 model calls', async () => {
    const model = new ScriptedModel([textChunks('Sunny.'), [toolCallChunk(TOOL, { city: 'Hangzhou' })]]);
    const agent = new Agent({ name: 'assistant', model, maxIters: 1, plugins: [structuredOutput()] });
    const result = await agent.reply('Weather?', { structuredSchema: weather });

    expect(result.finishedReason).toBe('completed');
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 20, tags: [] });
    expect(model.callCount).toBe(2);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', { name: TOOL }]);
    expect(getBlocks(result, 'hint').map((h) => h.hint)).toEqual([
      structuredOutputHint(false),
      structuredOutputHint(true),
    ]);
  });

  it('ends with structuredOutput null once the grace iterations are used (text answers)', async () => {
    const model = new ScriptedModel([textChunks('Sunny.'), textChunks('Still sunny.')]);
    const agent = new Agent({
      name: 'assistant',
      model,
      maxIters: 1,
      plugins: [structuredOutput({ graceIters: 1 })],
    });
    const result = await agent.reply('Weather?', { structuredSchema: weather });

    expect(result.structuredOutput).toBeNull();
    expect(model.callCount).toBe(2);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', { name: TOOL }]);
    expect(result.finishedReason).toBe('exceed_max_iters');
  });

  it('ends exceed_max_iters once the grace iterations are used (invalid calls)', async () => {
    const bad = [toolCallChunk(TOOL, { temperature: 1 })];
    const model = new ScriptedModel([bad, bad, bad], { onExhausted: 'repeat' });
    const agent = new Agent({
      name: 'assistant',
      model,
      maxIters: 1,
      plugins: [structuredOutput({ graceIters: 2 })],
    });
    const result = await agent.reply('Weather?', { structuredSchema: weather });

    expect(result.finishedReason).toBe('exceed_max_iters');
    expect(result.structuredOutput).toBeNull();
    expect(model.callCount).toBe(3);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', { name: TOOL }, { name: TOOL }]);
    expect(toolResults(result).map((r) => r.state)).toEqual(['error', 'error', 'error']);
  });

  it('mounts the tool only for replies that ask for a schema', async () => {
    const model = new ScriptedModel([
      [toolCallChunk(TOOL, { city: 'A' })],
      textChunks('Plain answer.'),
      [toolCallChunk(TOOL, { city: 'B' })],
    ]);
    const logger = recordingLogger();
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()], logger });

    const first = await agent.reply('One', { structuredSchema: weather });
    const second = await agent.reply('Two');
    const secondData = agent.state.reply?.data[PLUGIN];
    const third = await agent.reply('Three', { structuredSchema: weather });

    expect(first.structuredOutput).toEqual({ city: 'A', temperature: 20, tags: [] });
    expect(second.finishedReason).toBe('completed');
    expect(second.structuredOutput).toBeNull();
    expect(getBlocks(second, 'hint')).toEqual([]);
    expect(secondData).toBeUndefined();
    expect(third.structuredOutput).toEqual({ city: 'B', temperature: 20, tags: [] });
    expect(model.requests.map(toolNames)).toEqual([[TOOL], [], [TOOL]]);
    expect(logger.warnings).toEqual([]);
  });

  it('works in replyStream with yieldFinalMsg', async () => {
    const model = new ScriptedModel([[toolCallChunk(TOOL, { city: 'Hangzhou', temperature: 21 })]]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const items: Array<AgentEvent | Msg> = [];
    for await (const item of agent.replyStream('Weather?', {
      structuredSchema: weather,
      yieldFinalMsg: true,
    }))
      items.push(item);

    const last = items.at(-1) as Msg;
    expect(last.role).toBe('assistant');
    expect(last.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 21, tags: [] });
    const end = items.find(
      (e): e is Extract<AgentEvent, { type: 'REPLY_END' }> => 'type' in e && e.type === 'REPLY_END',
    );
    expect(end?.finishedReason).toBe('completed');
    expect(end?.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 21, tags: [] });
    expect(
      items.some((e) => 'type' in e && e.type === 'HINT_BLOCK' && e.source === STRUCTURED_OUTPUT_HINT_SOURCE),
    ).toBe(true);
  });

  it('accepts a plain JSON Schema through fromJsonSchema (validated by the JSON Schema validator)', async () => {
    const model = new ScriptedModel([[toolCallChunk(TOOL, { city: 'Hangzhou', extra: 'kept' })]]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const result = await agent.reply('Weather?', {
      structuredSchema: fromJsonSchema<{ city: string; unit: string }>({
        type: 'object',
        properties: { city: { type: 'string', title: 'City' }, unit: { type: 'string', default: 'C' } },
        required: ['city'],
      }),
    });
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', unit: 'C', extra: 'kept' });
  });

  it('ends the reply with a clear error for an unusable schema', async () => {
    const model = new ScriptedModel([textChunks('unused')]);
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const notObject = await agent.reply('x', { structuredSchema: z.string() });
    expect(notObject.finishedReason).toBe('error');
    expect(notObject.error?.message).toMatch(/must describe an object/);
    expect(model.callCount).toBe(0);
    const unrepresentable = await agent.reply('y', { structuredSchema: z.object({ at: z.date() }) });
    expect(unrepresentable.finishedReason).toBe('error');
    expect(unrepresentable.error?.message).toMatch(
      /cannot be converted to JSON Schema: Date cannot be represented/,
    );
    expect(model.callCount).toBe(0);
  });

  it('ends the reply with an error when the schema output is not plain JSON (the model cannot fix that)', async () => {
    const model = new ScriptedModel([[toolCallChunk(TOOL, { at: '2026-01-02T03:04:05.000Z' })]], {
      onExhausted: 'repeat',
    });
    const agent = new Agent({ name: 'assistant', model, plugins: [structuredOutput()] });
    const result = await agent.reply('When?', {
      structuredSchema: z.object({ at: z.string().transform((s) => new Date(s)) }),
    });
    expect(result.finishedReason).toBe('error');
    expect(result.structuredOutput).toBeNull();
    expect(result.error?.message).toMatch(/not plain JSON: \$\.at is a Date/);
    expect(model.callCount).toBe(1);
    expect(agent.state.reply?.finish ?? null).toBeNull();
  });

  it('rejects invalid options', () => {
    expect(() => structuredOutput({ graceIters: 0 })).toThrow(ConfigError);
    expect(() => structuredOutput({ graceIters: 1.5 })).toThrow(/graceIters must be a positive integer/);
  });

  it('rejects options that are not an object, or unknown, naming the field', () => {
    expect(() => structuredOutput(null as never)).toThrow(ConfigError);
    expect(() => structuredOutput('5' as never)).toThrow(/options must be an object/);
    // The reference's name for the option is not silently ignored: it points to `graceIters`.
    let error: unknown;
    try {
      structuredOutput({ structuredOutputGraceIters: 2 } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('structuredOutput.structuredOutputGraceIters');
    expect((error as Error).message).toMatch(/unknown option.*graceIters/);
    expect(
      (() => {
        try {
          structuredOutput({ graceIters: 0 });
        } catch (e) {
          return (e as ConfigError).field;
        }
      })(),
    ).toBe('structuredOutput.graceIters');
  });
});

describe('structured output across pauses', () => {
  const approve = defineTool({
    name: 'approve',
    description: 'Needs the user to confirm.',
    inputSchema: { type: 'object', properties: {} },
    needsConfirmation: true,
    execute: () => 'approved',
  });
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function pausedAgent() {
    const model = new ScriptedModel([[toolCallChunk('approve', {}, 'call_approve')]]);
    const logger = recordingLogger();
    const agent = new Agent({
      name: 'assistant',
      model,
      tools: [approve],
      plugins: [structuredOutput()],
      logger,
    });
    const paused = await agent.reply('Weather?', { structuredSchema: weather });
    expect(paused.finishedReason).toBeNull();
    const asking = getBlocks(paused, 'tool_call').find((c) => c.state === 'asking') as ToolCallBlock;
    expect(asking.name).toBe('approve');
    return { agent, model, logger, asking };
  }

  it('resumes in a new process without the schema; the stored JSON Schema validates (defaults filled, extras kept)', async () => {
    const { agent } = await pausedAgent();
    const dir = mkdtempSync(join(tmpdir(), 'agentkit-so-'));
    dirs.push(dir);
    const statePath = join(dir, 'state.json');
    const outPath = join(dir, 'out.json');
    writeFileSync(statePath, JSON.stringify(agent.state));

    const here = dirname(fileURLToPath(import.meta.url));
    const tsx = resolve(here, '../../../node_modules/.bin/tsx');
    const code = await new Promise<number | null>((done, fail) => {
      const child = spawn(
        tsx,
        ['--conditions=@agentkit/source', join(here, '__fixtures__/resume-child.ts'), statePath, outPath],
        {
          cwd: resolve(here, '..'),
          env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
      child.on('error', fail);
      child.on('exit', done);
    });
    expect(code).toBe(0);
    const out = JSON.parse(readFileSync(outPath, 'utf8')) as { result: Msg; requests: RecordedRequest[] };

    expect(out.result.finishedReason).toBe('completed');
    expect(out.result.structuredOutput).toEqual({
      city: 'Hangzhou',
      temperature: 20,
      tags: [],
      extra: 'kept',
    });
    expect(out.requests).toHaveLength(1);
    expect(toolNames(out.requests[0]!)).toEqual(expect.arrayContaining(['approve', TOOL]));
    expect(toolResults(out.result).map((r) => [r.name, r.state])).toEqual([
      ['approve', 'success'],
      [TOOL, 'success'],
    ]);
  }, 30_000);

  it('ignores a schema passed on resume, with a warning, and keeps validating with the original', async () => {
    const { agent, model, logger, asking } = await pausedAgent();
    model.push([toolCallChunk(TOOL, { city: 'Hangzhou', extra: 'dropped' })]);
    const other = z.object({ somethingElse: z.boolean() });
    const result = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: asking }]), {
      structuredSchema: other,
    });

    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/structuredSchema passed when resuming .* is ignored/);
    expect(result.finishedReason).toBe('completed');
    // In process the original zod schema still validates: extras dropped.
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 20, tags: [] });
    expect(model.requests[1]!.tools.find((t) => t.name === TOOL)?.inputSchema).toMatchObject({
      properties: { city: { type: 'string' } },
    });
  });

  it('ends a resumed reply with an error when the stored schema is corrupt', async () => {
    const { agent, asking } = await pausedAgent();
    const state = JSON.parse(JSON.stringify(agent.state));
    state.reply.data[PLUGIN] = { schema: 'not a schema' };
    const model = new ScriptedModel([[toolCallChunk(TOOL, { city: 'Hangzhou' })]]);
    const restored = new Agent({
      name: 'assistant',
      model,
      tools: [approve],
      plugins: [structuredOutput()],
      state,
    });
    const result = await restored.reply(userConfirmResult([{ confirmed: true, toolCall: asking }]));
    expect(result.finishedReason).toBe('error');
    expect(JSON.stringify(result.error)).toContain(PLUGIN);
    expect(model.callCount).toBe(0);
  });

  it('resumes from the JSON state in a new Agent of the same process (JSON Schema path)', async () => {
    const { agent, asking } = await pausedAgent();
    const model = new ScriptedModel([[toolCallChunk(TOOL, { city: 'Hangzhou', extra: 'kept' })]]);
    const restored = new Agent({
      name: 'assistant',
      model,
      tools: [approve],
      plugins: [structuredOutput()],
      state: JSON.parse(JSON.stringify(agent.state)),
    });
    const result = await restored.reply(userConfirmResult([{ confirmed: true, toolCall: asking }]));
    expect(result.structuredOutput).toEqual({ city: 'Hangzhou', temperature: 20, tags: [], extra: 'kept' });
  });
});
