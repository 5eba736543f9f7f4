// Issue 13, the part core's tests cannot import: replies compressed while they run — automatically and
// through the CompressContext tool, summaries that fail, interrupts — with usage reported on every model
// call, like a real provider. Whatever happens: every reply ends with a reason, the state parses, the
// events replay to the returned message, whose usage is the sum over all its model calls (summaries
// included), and the stored message carries the same usage.
import {
  Agent,
  type AgentEvent,
  addUsage,
  defineTool,
  emptyUsage,
  type ModelChunk,
  type ModelRequest,
  type Msg,
  parseAgentState,
  replayEvents,
  TokenCounter,
} from '@agentkit/core';
import { ScriptedModel, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPRESS_CONTEXT_TOOL_NAME } from './compress-context-tool';
import { contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { chars, FIELDS } from './__fixtures__/summary-fixtures';

const isSummary = (request: ModelRequest) =>
  typeof request.toolChoice === 'object' && request.toolChoice.name === SUMMARY_TOOL_NAME;

/** A step of a reply: tool calls (reads of a given size, or CompressContext), or the final answer. */
type Step = { reads: number[]; compress: boolean } | { answer: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      reads: fc.array(fc.integer({ min: 5, max: 250 }), { minLength: 1, maxLength: 3 }),
      compress: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 20 }).map((answer) => ({ answer })) },
);

const scenario = fc.record({
  replies: fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
  contextSize: fc.integer({ min: 400, max: 3000 }),
  triggerRatio: fc.double({ min: 0.3, max: 0.9, noNaN: true }),
  reserveShare: fc.double({ min: 0.05, max: 0.6, noNaN: true }),
  summaryFails: fc.array(fc.boolean(), { maxLength: 6 }),
  fallbackToTruncation: fc.boolean(),
  toolEnabled: fc.boolean(),
  abortAfterMs: fc.oneof(
    { weight: 5, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.nat(10) },
  ),
});

const quiet = { warn() {}, error() {} };

describe('replies compressed while they run (property)', () => {
  it('replay = returned message, usage = the sum over every model call, stored usage the same', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const read = defineTool({
          name: 'read',
          description: 'reads',
          inputSchema: { type: 'object', properties: { tokens: { type: 'integer' } } },
          concurrencySafe: true,
          execute: ({ tokens }: { tokens: number }) => chars('p', tokens),
        });
        const counter = new TokenCounter({});
        let reply = 0;
        let position = 0;
        let summaries = 0;
        // A provider-like model: usage on every call, input as core estimates it.
        const model = new ScriptedModel(
          [
            (request) => {
              const usage = usageChunk({ inputTokens: counter.count(request), outputTokens: 7 });
              if (isSummary(request)) {
                if (s.summaryFails[summaries++ % Math.max(1, s.summaryFails.length)])
                  return { chunks: [usage], errorAfter: new Error('summary failed') };
                return [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS), usage];
              }
              const steps = s.replies[reply]!;
              const next = steps[Math.min(position++, steps.length - 1)]!;
              if ('answer' in next) return [{ type: 'text', delta: next.answer }, usage];
              const chunks: ModelChunk[] = next.reads.map((tokens) => toolCallChunk('read', { tokens }));
              if (next.compress && s.toolEnabled) chunks.push(toolCallChunk(COMPRESS_CONTEXT_TOOL_NAME, {}));
              return [...chunks, usage];
            },
          ],
          { contextSize: s.contextSize, onExhausted: 'repeat', recordRequests: false },
        );
        const triggerRatio = Math.min(0.9, s.triggerRatio);
        const agent = new Agent({
          name: 'Friday',
          model,
          tools: [read],
          maxIters: 6,
          logger: quiet,
          plugins: [
            contextPlugin({
              triggerRatio,
              reserveRatio: Math.max(0.01, triggerRatio * s.reserveShare),
              contextBufferRatio: Math.min(0.2, triggerRatio / 2),
              compressionToolEnabled: s.toolEnabled,
              compressionFallbackToTruncation: s.fallbackToTruncation,
            }),
          ],
        });
        for (reply = 0; reply < s.replies.length; reply++) {
          position = 0;
          const controller = new AbortController();
          const timer =
            s.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), s.abortAfterMs);
          const events: AgentEvent[] = [];
          let msg: Msg | undefined;
          try {
            for await (const item of agent.replyStream(`question ${reply}`, {
              signal: controller.signal,
              yieldFinalMsg: true,
            }))
              if ('type' in item) events.push(item);
              else msg = item;
          } finally {
            clearTimeout(timer);
          }
          expect(['completed', 'interrupted', 'exceed_max_iters', 'error']).toContain(msg!.finishedReason);
          expect(replayEvents(events)).toEqual(msg);
          const sum = events.reduce(
            (u, e) => (e.type === 'MODEL_CALL_END' ? addUsage(u, e.usage) : u),
            emptyUsage(),
          );
          expect(msg!.usage ?? emptyUsage()).toEqual(sum);
          const state = parseAgentState(JSON.stringify(agent.state));
          const stored = state.context.find((m) => m.id === msg!.id);
          // A later compression (of this reply) may have summarised its message away entirely.
          if (stored) expect(stored.usage ?? emptyUsage()).toEqual(msg!.usage ?? emptyUsage());
        }
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
