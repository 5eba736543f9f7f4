import { AGENT_STATE_SCHEMA_VERSION, type AgentState } from '../state';

/** Options of {@link pausedStateFixture}. */
export interface PausedStateFixtureOptions {
  /** The state's `sessionId`. Default `'session-1'`. */
  sessionId?: string | undefined;
  /** Text woven into the user message and the summary, so that states built with different notes differ. */
  note?: string | undefined;
}

/**
 * A realistic {@link AgentState} of a reply paused for confirmation, for tests of stores, plugins and
 * resumption. It holds a compression summary, a user message, and the assistant reply `reply-1` (one
 * finished iteration) with a hint, a thinking block with provider data, a `Bash` call `call_1` with its
 * result, text, and a second `Bash` call `call_2` (`rm /tmp/a.tmp /tmp/b.tmp`) in state `asking` with a
 * suggested rule. It also carries permission rules, plugin slots (nested JSON, Unicode, line separators)
 * and per-reply plugin data. Every call returns a new object; it passes `parseAgentState`, and an
 * `Agent` with a `Bash` tool resumes it with `userConfirmResult` for `call_2`.
 * @example
 * const state = pausedStateFixture({ sessionId: 's1' });
 * await store.upsertSession('u', 'a', 's1', { state });
 */
export function pausedStateFixture(options: PausedStateFixtureOptions = {}): AgentState {
  const { sessionId = 'session-1', note = 'hello' } = options;
  const t = '2026-11-30T10:00:00.000Z';
  return {
    schemaVersion: AGENT_STATE_SCHEMA_VERSION,
    sessionId,
    summary: [{ type: 'text', id: 'sum-1', text: `Earlier: the user asked about 杭州 weather (${note}).` }],
    context: [
      {
        id: 'm1',
        name: 'user',
        role: 'user',
        content: [{ type: 'text', id: 'b1', text: `Delete the temp files, please — ${note} ✓ 👩‍💻` }],
        metadata: {},
        createdAt: t,
        usage: null,
        finishedAt: null,
        finishedReason: null,
        structuredOutput: null,
        error: null,
      },
      {
        id: 'reply-1',
        name: 'Friday',
        role: 'assistant',
        content: [
          {
            type: 'hint',
            id: 'h1',
            hint: '<system-reminder>Current time: 2026-11-30 10:00 UTC</system-reminder>',
            source: 'injection',
            createdAt: t,
          },
          {
            type: 'thinking',
            id: 'th1',
            thinking: 'List first, then delete.',
            providerData: { signature: 'c2ln' },
          },
          {
            type: 'tool_call',
            id: 'call_1',
            name: 'Bash',
            input: '{"command":"ls /tmp"}',
            state: 'finished',
          },
          {
            type: 'tool_result',
            id: 'call_1',
            name: 'Bash',
            output: [{ type: 'text', id: 'o1', text: 'a.tmp\nb.tmp\n' }],
            state: 'success',
            metadata: { exitCode: 0 },
          },
          { type: 'text', id: 't1', text: 'I will delete two files.' },
          {
            type: 'tool_call',
            id: 'call_2',
            name: 'Bash',
            input: '{"command":"rm /tmp/a.tmp /tmp/b.tmp"}',
            state: 'asking',
            suggestedRules: [{ toolName: 'Bash', ruleContent: 'rm:*', behavior: 'allow' }],
          },
        ],
        metadata: { model: 'scripted' },
        createdAt: t,
        usage: {
          inputTokens: 120,
          outputTokens: 48,
          cacheInputTokens: 0,
          cacheCreationInputTokens: 0,
          reasoningTokens: 7,
        },
        finishedAt: null,
        finishedReason: null,
        structuredOutput: null,
        error: null,
      },
    ],
    reply: {
      id: 'reply-1',
      iteration: 1,
      data: {
        'structured-output': { schema: { type: 'object', properties: { done: { type: 'boolean' } } } },
      },
      finish: null,
    },
    permissions: {
      allow: [{ toolName: 'Read', ruleContent: null, behavior: 'allow' }],
      deny: [{ toolName: 'Bash', ruleContent: 'sudo:*', behavior: 'deny' }],
      ask: [],
    },
    plugins: {
      tasks: {
        tasks: [{ id: '1', subject: 'Clean /tmp', state: 'in_progress', blockedBy: [], owner: null }],
      },
      empty: null,
      nested: { a: [1, 2.5, -3e-7, true, false, null, ''], unicode: 'é e\u0301 \u2028 \\ "quoted"' },
    },
  };
}
