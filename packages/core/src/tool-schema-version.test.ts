import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { Agent } from './agent';
import { ConfigError } from './errors/config-error';
import { ScriptedModel } from './testing';
import { defineTool } from './define-tool';
import type { Tool } from './tool';
import { zodVersionProblem } from './tool-input';

const model = new ScriptedModel([]);

describe('tool schemas from an older zod', () => {
  it('a zod 3 schema fails when the tool is defined, naming the zod version needed', () => {
    let error: unknown;
    try {
      defineTool({ name: 'add', description: 'Add', inputSchema: z3.object({ a: z3.number() }) as never });
    } catch (e) {
      error = e;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).message).toBe(
      "Tool 'add': it is a zod 3 schema, and agentkit needs zod ≥ 4.2 (the first version whose schemas describe themselves as JSON Schema): install zod@^4.2.",
    );
    expect((error as ConfigError).field).toBe('tools.add.inputSchema');
  });

  it('a tool not built with defineTool fails when the agent is built, not at the first reply', () => {
    const tool: Tool = {
      name: 'add',
      description: 'Add',
      inputSchema: z3.object({ a: z3.number() }) as never,
    };
    expect(() => new Agent({ name: 'a', model, tools: [tool] })).toThrow(/zod 3 schema.*needs zod ≥ 4\.2/);
  });

  it('names a zod 4 before 4.2 by its version, and accepts 4.2 and later', () => {
    const old = { _zod: { version: { major: 4, minor: 1, patch: 0 } }, '~standard': { vendor: 'zod' } };
    expect(zodVersionProblem(old)).toMatch(/^it is a zod 4\.1 schema, and agentkit needs zod ≥ 4\.2/);
    expect(zodVersionProblem(z.object({ a: z.number() }))).toBeUndefined();
    expect(zodVersionProblem({ type: 'object' })).toBeUndefined();
    expect(() =>
      defineTool({ name: 'ok', description: 'Ok', inputSchema: z.object({ a: z.number() }) }),
    ).not.toThrow();
  });

  it('a zod 3 schema passed with its own jsonSchema is fine (nothing to convert)', () => {
    expect(() =>
      defineTool({
        name: 'add',
        description: 'Add',
        inputSchema: z3.object({ a: z3.number() }) as never,
        jsonSchema: { type: 'object', properties: { a: { type: 'number' } } },
      }),
    ).not.toThrow();
  });
});
