import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { classifyError } from './error-info';
import { ModelError } from './errors/model-error';
import type { AgentEvent } from './events';
import { getText } from './msg';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const fast = { initialDelayMs: 1, maxDelayMs: 5 };

describe('model errors, retries and fallback', () => {
  it('should retry a retryable failure before any output and then succeed', async () => {
    const model = new ScriptedModel([
      { error: new ModelError('rate_limit', 'slow down', { status: 429, retryAfterMs: 1 }) },
      textChunks('ok'),
    ]);
    const msg = await new Agent({ name: 'a', model, modelRetry: fast }).reply('hi');
    expect(getText(msg)).toBe('ok');
    expect(model.callCount).toBe(2);
  });

  it('should not retry a non-retryable failure and end the reply with its ErrorInfo', async () => {
    const model = new ScriptedModel([
      {
        error: new ModelError('authentication', 'The model provider rejected the credentials (HTTP 401).', {
          status: 401,
        }),
      },
    ]);
    const agent = new Agent({ name: 'a', model, modelRetry: fast });
    const evs: AgentEvent[] = [];
    for await (const e of agent.replyStream('hi')) evs.push(e as AgentEvent);
    expect(evs.at(-1)).toMatchObject({
      type: 'REPLY_END',
      finishedReason: 'error',
      error: { type: 'authentication' },
    });
    expect(model.callCount).toBe(1);
    expect(agent.state.context.at(-1)!.finishedReason).toBe('error');
  });

  it('should fall back to the fallback model after the primary used all attempts', async () => {
    const primary = new ScriptedModel([
      { error: new ModelError('upstream', 'down') },
      { error: new ModelError('upstream', 'down') },
    ]);
    const fallback = new ScriptedModel([textChunks('from fallback')], { name: 'backup' });
    const msg = await new Agent({
      name: 'a',
      model: primary,
      fallbackModel: fallback,
      modelRetry: { ...fast, maxRetries: 1 },
    }).reply('hi');
    expect(getText(msg)).toBe('from fallback');
    expect(primary.callCount).toBe(2);
  });

  it('should end with connection error when the stream breaks mid-way, keep partial text, and stay resumable', async () => {
    const broken = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const tools = [
      defineTool({ name: 't', description: 'd', inputSchema: { type: 'object' }, execute: () => 'x' }),
    ];
    const model = new ScriptedModel([
      {
        chunks: [...textChunks('partial '), { type: 'tool_call', id: 'c1', name: 't', delta: '{"a":' }],
        errorAfter: broken,
      },
      textChunks('recovered'),
    ]);
    const agent = new Agent({ name: 'a', model, tools, modelRetry: fast });
    const msg = await agent.reply('hi');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.type).toBe('connection');
    expect(getText(msg)).toBe('partial ');
    // The half-streamed call is closed with an error result, so the next request is consistent.
    expect(msg.content.find((b) => b.type === 'tool_result')).toMatchObject({ id: 'c1', state: 'error' });
    expect(model.callCount).toBe(1);
    const next = await agent.reply('try again');
    expect(getText(next)).toBe('recovered');
  });

  it('should end exceed_max_iters after maxIters tool rounds', async () => {
    const tools = [
      defineTool({ name: 't', description: 'd', inputSchema: { type: 'object' }, execute: () => 'x' }),
    ];
    const model = new ScriptedModel([[toolCallChunk('t', {})]], { onExhausted: 'repeat' });
    const agent = new Agent({ name: 'a', model, tools, maxIters: 3 });
    const evs: AgentEvent[] = [];
    for await (const e of agent.replyStream('loop')) evs.push(e as AgentEvent);
    expect(evs.slice(-2).map((e) => e.type)).toEqual(['EXCEED_MAX_ITERS', 'REPLY_END']);
    expect(evs.at(-1)).toMatchObject({ finishedReason: 'exceed_max_iters' });
    expect(model.callCount).toBe(3);
    expect(agent.state.reply?.iteration).toBe(3);
  });

  it('a final answer that arrives exactly on iteration maxIters completes', async () => {
    const tools = [
      defineTool({ name: 't', description: 'd', inputSchema: { type: 'object' }, execute: () => 'x' }),
    ];
    // Two tool rounds (iterations 1 and 2), then the answer on iteration 3 = maxIters.
    const model = new ScriptedModel([
      [toolCallChunk('t', {})],
      [toolCallChunk('t', {})],
      textChunks('done on the last iteration'),
    ]);
    const agent = new Agent({ name: 'a', model, tools, maxIters: 3 });
    const evs: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) evs.push(e as AgentEvent);
    expect(evs.map((e) => e.type)).not.toContain('EXCEED_MAX_ITERS');
    expect(evs.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
    expect(model.callCount).toBe(3);
    expect(agent.state.reply?.iteration).toBe(3);
    // One round fewer than the limit allows is no different; one more would exceed it.
    const over = new ScriptedModel([
      [toolCallChunk('t', {})],
      [toolCallChunk('t', {})],
      [toolCallChunk('t', {})],
      textChunks('too late'),
    ]);
    const late = await new Agent({ name: 'a', model: over, tools, maxIters: 3 }).reply('go');
    expect(late.finishedReason).toBe('exceed_max_iters');
    expect(over.callCount).toBe(3);
  });
});

describe('classifyError', () => {
  it('should map statuses, network errors, causes and aggregate members', () => {
    expect(classifyError({ status: 401 }).type).toBe('authentication');
    expect(classifyError({ status: 403 }).type).toBe('permission');
    expect(classifyError({ status: 429 }).type).toBe('rate_limit');
    expect(classifyError({ status: 422 }).type).toBe('invalid_request');
    expect(classifyError({ response: { status: 503 } }).type).toBe('upstream');
    expect(classifyError(Object.assign(new Error('x'), { name: 'APIConnectionError' })).type).toBe(
      'connection',
    );
    expect(classifyError(new Error('wrapped', { cause: { statusCode: 404 } })).type).toBe('invalid_request');
    expect(classifyError(new AggregateError([new Error('a'), { status: 500 }])).type).toBe('upstream');
    expect(classifyError(new Error('plain')).type).toBe('unknown');
    expect(classifyError({ status: 401, message: 'key sk-123 invalid' }).message).not.toContain('sk-123');
  });
});
