import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { AgentkitError } from './errors/agentkit-error';
import { userConfirmResult } from './events';
import type { Msg } from './msg';
import { awaitingToolCalls } from './reply-input';
import { type AgentState, parseAgentState } from './state';
import { pausedStateFixture } from './testing/paused-state-fixture';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';
import { defineTool } from './define-tool';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = Array<string | number>;

/** Every path in a JSON tree (the root excluded). */
function paths(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([...prefix, i]);
      paths(v, [...prefix, i], out);
    });
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push([...prefix, k]);
      paths(v, [...prefix, k], out);
    }
  return out;
}

type Mutation =
  | { kind: 'delete'; at: number }
  | { kind: 'replace'; at: number; value: Json }
  | { kind: 'duplicate'; at: number }
  | { kind: 'deep'; at: number; depth: number };

/** Applies a mutation at the `at`-th path (modulo the number of paths) of `root`, in place. */
function mutate(root: Json, m: Mutation): void {
  const all = paths(root);
  if (all.length === 0) return;
  const path = all[m.at % all.length]!;
  const parent = path.slice(0, -1).reduce<Json>((v, k) => (v as Record<string, Json>)[k]!, root) as
    | Json[]
    | Record<string, Json>;
  const key = path[path.length - 1]!;
  const slot = parent as Record<string | number, Json>;
  switch (m.kind) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete slot[key];
      return;
    case 'replace':
      slot[key] = m.value;
      return;
    case 'duplicate':
      if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(parent[key as number]!));
      else slot[key] = structuredClone(slot[key]!);
      return;
    case 'deep': {
      let deep: Json = 'bottom';
      for (let i = 0; i < m.depth; i++) deep = [deep];
      slot[key] = deep;
    }
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    value: fc.oneof(
      fc.constantFrom<Json>(
        null,
        '',
        'x',
        0,
        -1,
        1.5,
        true,
        [],
        {},
        'text',
        'tool_call',
        'asking',
        'running',
      ),
      fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
    ),
  }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('deep' as const), at: fc.nat(), depth: fc.constantFrom(600, 5_000) }),
);

function bases(): AgentState[] {
  const paused = pausedStateFixture();
  const finished = pausedStateFixture({ sessionId: 'finished' });
  const reply = finished.context[1]!;
  reply.content = reply.content.slice(0, 5);
  reply.finishedAt = reply.createdAt;
  reply.finishedReason = 'completed';
  return [paused, finished];
}

/** A reply on the state: resume what is paused (confirming every call), else a new user message. */
async function replyOn(state: AgentState): Promise<Msg> {
  const bash = defineTool({
    name: 'Bash',
    description: 'run a command',
    inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    needsConfirmation: true,
    execute: ({ command }: { command: string }) => `ran ${command}`,
  });
  const model = new ScriptedModel(
    [[toolCallChunk('Bash', { command: 'ls' })], ...Array.from({ length: 8 }, () => textChunks('done'))],
    { recordRequests: false },
  );
  const agent = new Agent({ name: 'Friday', model, tools: [bash], state, logger: silent, maxIters: 4 });
  const awaiting = awaitingToolCalls(agent.state);
  const input = awaiting.length
    ? userConfirmResult(
        awaiting.map((c) => ({ confirmed: true, toolCall: { id: c.id, name: c.name, input: c.input } })),
      )
    : 'next';
  let msg = await agent.reply(input);
  // A second reply on what the first left behind: a state the loop produced must always work again.
  if (msg.finishedReason === null)
    msg = await agent.reply(
      userConfirmResult(
        awaitingToolCalls(agent.state).map((c) => ({
          confirmed: true,
          toolCall: { id: c.id, name: c.name, input: c.input },
        })),
      ),
    );
  parseAgentState(JSON.stringify(agent.state));
  return msg;
}

const silent = { warn() {}, error() {} };

describe('a mutated paused state', () => {
  it('either fails to load with a StateError, or replies without an internal error', async () => {
    let rejected = 0;
    let replied = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (base, mutations) => {
          const state = bases()[base]! as unknown as Json;
          // A deep value last: walking the tree (paths()) through it would overflow the test's own stack.
          const ordered = [
            ...mutations.filter((m) => m.kind !== 'deep'),
            ...mutations.filter((m) => m.kind === 'deep').slice(0, 1),
          ];
          for (const m of ordered) mutate(state, m);
          let agentState: AgentState;
          try {
            // Too deep for JSON.stringify (the 5,000-level mutation): load the object itself.
            let text: string | Json = state;
            try {
              text = JSON.stringify(state);
            } catch {}
            agentState = parseAgentState(text);
          } catch (error) {
            expect(AgentkitError.isInstance(error) && error.code).toBe('STATE');
            rejected++;
            return;
          }
          let msg: Msg;
          try {
            msg = await replyOn(agentState);
          } catch (error) {
            // Typed refusals before anything runs are fine; anything else is a crash.
            expect(AgentkitError.isInstance(error), String(error)).toBe(true);
            expect((error as AgentkitError).code).toMatch(/^(REPLY_PAUSED|RESUME_MISMATCH|INVALID_INPUT)$/);
            replied++;
            return;
          }
          expect(msg.finishedReason).not.toBeNull();
          if (msg.finishedReason === 'error')
            expect(msg.error?.type, msg.error?.message).not.toMatch(/internal|unknown/);
          replied++;
        },
      ),
      { numRuns: 2_000, seed: 20261201 },
    );
    // Both outcomes occur, so the property is not vacuous.
    expect(rejected).toBeGreaterThan(100);
    expect(replied).toBeGreaterThan(100);
  }, 120_000);

  it('rejects values that are not JSON with a StateError naming the path, not a DataCloneError or RangeError', () => {
    const withFn = pausedStateFixture() as unknown as Record<string, unknown>;
    (withFn.plugins as Record<string, unknown>).fn = () => 1;
    expect(() => parseAgentState(withFn)).toThrow(/state\.plugins\.fn is a function/);
    const cyclic = pausedStateFixture() as unknown as { plugins: Record<string, unknown> };
    cyclic.plugins.self = cyclic;
    expect(() => parseAgentState(cyclic)).toThrow(/state\.plugins\.self refers back to itself/);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const deepState = { ...pausedStateFixture(), plugins: { deep } };
    expect(() => parseAgentState(deepState)).toThrow(/nests deeper than 512 levels/);
    expect(() =>
      parseAgentState(
        JSON.stringify({ ...pausedStateFixture(), plugins: { deep: 'x' } }).replace(
          '"x"',
          `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
        ),
      ),
    ).toThrow(/nests deeper than 512 levels/);
    const dated = { ...pausedStateFixture(), plugins: { when: new Date() } };
    expect(() => parseAgentState(dated)).toThrow(/Date instance/);
    expect(() => parseAgentState({ ...pausedStateFixture(), plugins: { big: 1n } })).toThrow(/bigint/);
  });

  it('names the path of a bad block, usage number or summary', () => {
    const state = pausedStateFixture();
    const at = (edit: (s: AgentState) => void) => {
      const s = structuredClone(state);
      edit(s);
      return () => parseAgentState(s);
    };
    expect(at((s) => ((s.summary as unknown[])[0] = 5))).toThrow(
      /'summary\[0\]' must be a text or data block/,
    );
    expect(at((s) => (s.context[1]!.usage!.inputTokens = 'x' as never))).toThrow(
      /'context\[1\]\.usage\.inputTokens' must be a number/,
    );
    expect(at((s) => ((s.context[1]!.content[2] as { state: string }).state = 'exploded'))).toThrow(
      /'context\[1\]\.content\[2\]\.state'/,
    );
    expect(at((s) => s.context[0]!.content.push({ type: 'tool_call' } as never))).toThrow(
      /'context\[0\]\.content\[1\]\.type' must be a block a user message may hold/,
    );
    expect(at((s) => (s.permissions.allow[0]!.behavior = 'maybe' as never))).toThrow(
      /'permissions\.allow\[0\]\.behavior'/,
    );
  });
});
