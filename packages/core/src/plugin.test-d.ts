import { describe, expectTypeOf, it } from 'vitest';
import { Agent } from './agent';
import {
  definePlugin,
  type Plugin,
  type PluginContext,
  type PluginOption,
  type PluginTool,
  type PluginToolContext,
} from './plugin';
import { ScriptedModel } from './testing/scripted-model';
import { defineTool } from './define-tool';
import type { AnyTool, Tool, ToolContext } from './tool';

interface Counter {
  count: number;
}

const model = new ScriptedModel([]);
const plainTool = defineTool({ name: 'plain', description: 'd', inputSchema: { type: 'object' } });
const counterTool = defineTool({
  name: 'bump',
  description: 'd',
  inputSchema: { type: 'object' },
  execute: (_input, ctx: PluginToolContext<Counter>) => {
    ctx.plugin.setState({ count: ctx.plugin.getState().count + 1 });
    return 'ok';
  },
});

describe('the plugin contract', () => {
  it("types every hook's ctx by the plugin's state, inferred from state.initial", () => {
    definePlugin({
      name: 'counter',
      state: { initial: (): Counter => ({ count: 0 }) },
      hooks: {
        beforeInference: ({ ctx }) => {
          expectTypeOf(ctx).toEqualTypeOf<PluginContext<Counter>>();
          expectTypeOf(ctx.getState()).toEqualTypeOf<Counter>();
          ctx.setState({ count: 1 });
          // @ts-expect-error the slot holds a Counter
          ctx.setState({ count: 'one' });
        },
        afterTool: {
          handler: ({ ctx }) => {
            expectTypeOf(ctx.getState()).toEqualTypeOf<Counter>();
          },
          order: 'pre',
        },
        onReplyEnd: ({ ctx }) => {
          expectTypeOf(ctx.getState().count).toBeNumber();
        },
      },
    });
  });

  it('gives a plugin without state an unknown slot, and getState takes no type argument', () => {
    definePlugin({
      name: 'stateless',
      hooks: {
        beforeTool: ({ ctx }) => {
          expectTypeOf(ctx.getState()).toBeUnknown();
          // @ts-expect-error the slot's type comes from the plugin, not from the caller
          ctx.getState<number>();
        },
      },
    });
  });

  it("gives a plugin tool its plugin's context, always present", () => {
    expectTypeOf(counterTool).toEqualTypeOf<Tool<unknown, PluginToolContext<Counter>>>();
    expectTypeOf<PluginToolContext<Counter>['plugin']>().toEqualTypeOf<PluginContext<Counter>>();
    expectTypeOf(counterTool).toExtend<PluginTool<unknown, Counter>>();
  });

  it('gives a plain tool no plugin context', () => {
    defineTool({
      name: 'plain',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) => {
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        // @ts-expect-error a plain tool has no plugin
        return ctx.plugin;
      },
    });
  });

  it("accepts plain tools and its own plugin tools in a plugin's tools, but not another plugin's", () => {
    definePlugin({
      name: 'counter',
      state: { initial: (): Counter => ({ count: 0 }) },
      tools: [plainTool, counterTool],
    });
    definePlugin({
      name: 'mounts-per-reply',
      state: { initial: (): Counter => ({ count: 0 }) },
      hooks: { beforeReply: () => ({ tools: [plainTool, counterTool] }) },
    });
    definePlugin<string>({
      name: 'other',
      state: { initial: () => 'text' },
      // @ts-expect-error counterTool needs a Counter slot
      tools: [counterTool],
    });
  });

  it("refuses a plugin tool among the agent's own tools, where no plugin context exists", () => {
    new Agent({ name: 'a', model, tools: [plainTool] });
    // @ts-expect-error a plugin tool needs its plugin's context
    new Agent({ name: 'a', model, tools: [counterTool] });
  });

  it('lets typed plugins go wherever plugins are listed', () => {
    const counter: Plugin<Counter> = definePlugin({ name: 'c', state: { initial: () => ({ count: 0 }) } });
    expectTypeOf(counter).toExtend<PluginOption>();
    const untyped: Plugin = counter;
    expectTypeOf(untyped.name).toBeString();
    new Agent({ name: 'a', model, plugins: [counter, false, [counter]] });
  });

  it('lists tools of any kind where tools are read', () => {
    const agent = new Agent({ name: 'a', model });
    expectTypeOf(agent.tools).toEqualTypeOf<readonly AnyTool[]>();
    expectTypeOf(counterTool).toExtend<AnyTool>();
    definePlugin({
      name: 'p',
      hooks: {
        beforeTool: ({ ctx, tool }) =>
          expectTypeOf(ctx.tools).toEqualTypeOf<readonly AnyTool[]>() && void tool,
      },
    });
  });
});
