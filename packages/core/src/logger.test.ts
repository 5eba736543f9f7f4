import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { Agent } from './agent';
import type { AgentEvent } from './events';
import { ModelError } from './errors/model-error';
import { consoleLogger, type Logger, toLogger } from './logger';
import type { Msg } from './msg';
import { ScriptedModel, textChunks } from './testing';

afterEach(() => vi.restoreAllMocks());

function spyConsole() {
  return Object.fromEntries(
    (['debug', 'info', 'warn', 'error'] as const).map((l) => [
      l,
      vi.spyOn(console, l).mockImplementation(() => {}),
    ]),
  ) as Record<'debug' | 'info' | 'warn' | 'error', ReturnType<typeof vi.spyOn>>;
}

describe('Logger', () => {
  it('consoleLogger() drops debug and info and writes warnings and errors to console', () => {
    const spy = spyConsole();
    const log = consoleLogger();
    log.debug('d');
    log.info('i');
    log.warn('w', 1);
    log.error('e');
    expect(spy.debug).not.toHaveBeenCalled();
    expect(spy.info).not.toHaveBeenCalled();
    expect(spy.warn).toHaveBeenCalledWith('w', 1);
    expect(spy.error).toHaveBeenCalledWith('e');
  });

  it("consoleLogger('debug') writes every level", () => {
    const spy = spyConsole();
    const log = consoleLogger('debug');
    log.debug('d');
    log.info('i');
    expect(spy.debug).toHaveBeenCalledWith('d');
    expect(spy.info).toHaveBeenCalledWith('i');
  });

  it('toLogger keeps the given levels (bound to their object) and silences the missing ones', () => {
    const lines: string[] = [];
    const custom = {
      prefix: 'app',
      warn(this: { prefix: string }, m: string) {
        lines.push(`${this.prefix}: ${m}`);
      },
    };
    const log = toLogger(custom as Partial<Logger>);
    log.debug('ignored');
    log.info('ignored');
    log.warn('careful');
    log.error('ignored too');
    expect(lines).toEqual(['app: careful']);
  });

  it('an agent logs model retries at debug level, which the default logger drops', async () => {
    const spy = spyConsole();
    const debug: string[] = [];
    const failOnce = () =>
      new ScriptedModel([{ error: new ModelError('connection', 'socket hang up') }, textChunks('ok')]);
    const agent = new Agent({
      name: 'a',
      model: failOnce(),
      modelRetry: { initialDelayMs: 1 },
      logger: { debug: (m: string) => debug.push(m), warn: () => {}, error: () => {} },
    });
    expect((await agent.reply('hi')).finishedReason).toBe('completed');
    expect(debug).toEqual([
      expect.stringMatching(/^agentkit: model call failed \(socket hang up\); retry 1 of 2 in 1 ms$/),
    ]);
    const quiet = new Agent({ name: 'b', model: failOnce(), modelRetry: { initialDelayMs: 1 } });
    expect((await quiet.reply('hi')).finishedReason).toBe('completed');
    expect(spy.debug).not.toHaveBeenCalled();
  });
});

describe('replyStream types', () => {
  it('yields only events without yieldFinalMsg, and events or the message with it', async () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('x'), textChunks('y')]) });
    const events = agent.replyStream('hi');
    expectTypeOf(events).toEqualTypeOf<AsyncGenerator<AgentEvent, void>>();
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types).toContain('TEXT_BLOCK_DELTA');
    const withMsg = agent.replyStream('again', { yieldFinalMsg: true });
    expectTypeOf(withMsg).toEqualTypeOf<AsyncGenerator<AgentEvent | Msg<unknown>, void>>();
    let last: AgentEvent | Msg | undefined;
    for await (const item of withMsg) last = item;
    expect(last && 'role' in last && last.role).toBe('assistant');
  });
});
