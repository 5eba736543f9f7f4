import { describe, expect, it } from 'vitest';
import type { ToolCallBlock, ToolResultBlock } from './blocks';
import { PluginHookError } from './errors/plugin-hook-error';
import { HookDriver, type HookScope } from './hook-driver';
import type { Logger, Plugin, PluginContext } from './plugin';

const call: ToolCallBlock = { type: 'tool_call', id: 'c1', name: 't', input: '{}', state: 'pending' };
const result = (text: string): ToolResultBlock => ({
  type: 'tool_result',
  id: 'c1',
  name: 't',
  output: [{ type: 'text', id: 'c1.0', text }],
  state: 'success',
  metadata: {},
});

/** A scope whose contexts are marked with their plugin's name, so tests see which ctx a hook got. */
function scope(signal = new AbortController().signal): HookScope {
  return { signal, pluginContext: (plugin) => ({ pluginName: plugin.name }) as PluginContext };
}

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, warn: () => {}, error: (message) => errors.push(message) };
}

describe('HookDriver', () => {
  it('should know which hooks are registered and sort handlers by order, enforce, then registration', () => {
    const plugins: Plugin[] = [
      { name: 'a', hooks: { afterTool: () => {} } },
      { name: 'b', enforce: 'post', hooks: { afterTool: () => {} } },
      { name: 'c', hooks: { afterTool: { handler: () => {}, order: 'pre' } } },
      { name: 'd', enforce: 'pre', hooks: { afterTool: () => {} } },
    ];
    const driver = new HookDriver(plugins, recordingLogger());
    expect(driver.has('afterTool')).toBe(true);
    expect(driver.has('beforeTool')).toBe(false);
    expect(driver.handlers('afterTool').map((h) => h.plugin.name)).toEqual(['c', 'd', 'a', 'b']);
    expect(driver.handlers('beforeTool')).toEqual([]);
  });

  it('collect runs every handler in order and returns what each returned, with its plugin', async () => {
    const ran: string[] = [];
    const plugins: Plugin[] = ['a', 'b', 'c'].map((name) => ({
      name,
      hooks: {
        beforeReply: ({ ctx }) => {
          ran.push(ctx.pluginName);
          if (name !== 'b') return { tools: [] };
        },
      },
    }));
    const driver = new HookDriver(plugins, recordingLogger());
    const out = await driver.collect('beforeReply', scope(), (ctx) => ({
      ctx,
      input: { kind: 'continue' },
      options: {},
    }));
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(out.map((r) => r.plugin.name)).toEqual(['a', 'c']);
  });

  it('waterfall hands each handler the value the previous one left', async () => {
    const seen: string[] = [];
    const plugins: Plugin[] = [
      { name: 'a', hooks: { afterTool: () => result('from a') } },
      {
        name: 'b',
        hooks: {
          afterTool: ({ result: r }) => {
            seen.push((r.output[0] as { text: string }).text);
          },
        },
      },
      { name: 'c', hooks: { afterTool: ({ result: r }) => ({ ...r, state: 'error' as const }) } },
    ];
    const driver = new HookDriver(plugins, recordingLogger());
    const out = await driver.waterfall('afterTool', scope(), result('original'), (ctx, r) => ({
      ctx,
      toolCall: call,
      result: r,
    }));
    expect(seen).toEqual(['from a']);
    expect(out).toMatchObject({ state: 'error', output: [{ text: 'from a' }] });
  });

  it('firstDecision stops at the first handler that decides', async () => {
    const ran: string[] = [];
    const plugins: Plugin[] = ['a', 'b', 'c'].map((name) => ({
      name,
      hooks: {
        beforeFinish: () => {
          ran.push(name);
          return name === 'b' ? { continue: true, hint: name } : undefined;
        },
      },
    }));
    const driver = new HookDriver(plugins, recordingLogger());
    const decision = await driver.firstDecision(
      'beforeFinish',
      scope(),
      (ctx) => ({ ctx, reason: 'completed', message: {} as never }),
      (returned) => (returned?.continue ? returned : undefined),
    );
    expect(decision).toEqual({ continue: true, hint: 'b' });
    expect(ran).toEqual(['a', 'b']);
  });

  it('attributes an interceptor failure to its plugin and hook, in every interceptor strategy', async () => {
    const boom = new Error('boom');
    const driver = new HookDriver(
      [
        {
          name: 'bad',
          hooks: {
            beforeReply: () => {
              throw boom;
            },
            afterTool: async () => {
              throw boom;
            },
            beforeTool: () => {
              throw boom;
            },
          },
        },
      ],
      recordingLogger(),
    );
    const failures = [
      driver.collect('beforeReply', scope(), (ctx) => ({ ctx, input: { kind: 'continue' }, options: {} })),
      driver.waterfall('afterTool', scope(), result('x'), (ctx, r) => ({ ctx, toolCall: call, result: r })),
      driver.firstDecision(
        'beforeTool',
        scope(),
        (ctx) => ({ ctx, toolCall: call, tool: undefined, input: {} }),
        () => undefined,
      ),
    ];
    for (const [i, hook] of ['beforeReply', 'afterTool', 'beforeTool'].entries()) {
      const error = await failures[i]!.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(PluginHookError);
      expect(error).toMatchObject({ plugin: 'bad', hook, cause: boom });
    }
  });

  it('passes the abort through untouched when the reply was aborted', async () => {
    const controller = new AbortController();
    const reason = new DOMException('stop', 'AbortError');
    const driver = new HookDriver(
      [
        {
          name: 'slow',
          hooks: {
            afterTool: () => {
              controller.abort(reason);
              throw reason;
            },
          },
        },
      ],
      recordingLogger(),
    );
    await expect(
      driver.waterfall('afterTool', scope(controller.signal), result('x'), (ctx, r) => ({
        ctx,
        toolCall: call,
        result: r,
      })),
    ).rejects.toBe(reason);
  });

  it('observe runs handlers concurrently and reports failures to onError and the logger', async () => {
    const logger = recordingLogger();
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const reported: Array<{ plugin: string; hook: string }> = [];
    const driver = new HookDriver(
      [
        {
          name: 'waits',
          hooks: {
            onReplyEnd: async () => {
              started.push('waits');
              await gate;
            },
          },
        },
        {
          name: 'fails',
          hooks: {
            onReplyEnd: () => {
              started.push('fails');
              release(); // runs while the first handler still waits: they are concurrent
              throw new Error('observer broke');
            },
          },
        },
        {
          name: 'listener',
          hooks: {
            onError: ({ plugin, hook }) => {
              reported.push({ plugin, hook });
              throw new Error('onError broke too');
            },
          },
        },
      ],
      logger,
    );
    await driver.observe('onReplyEnd', scope(), (ctx) => ({
      ctx,
      message: {} as never,
      finishedReason: 'completed',
    }));
    expect(started).toEqual(['waits', 'fails']);
    expect(reported).toEqual([{ plugin: 'fails', hook: 'onReplyEnd' }]);
    expect(logger.errors).toEqual([
      "agentkit: plugin 'fails' failed in observer hook 'onReplyEnd'",
      "agentkit: plugin 'listener' failed in 'onError'",
    ]);
  });
});
