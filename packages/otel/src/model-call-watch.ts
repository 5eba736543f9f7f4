import type { ContentBlock, Msg, PluginContext, Usage } from '@agentkit/core';

/**
 * What tracing records about a model call that ended. Plugins cannot see `MODEL_CALL_END` today, so
 * {@link ModelCallWatch} reads it back from the reply message; a core hook at the end of each model call
 * (with its usage and the model that answered) would hand it over as is.
 */
export interface ModelCallOutcome {
  /** This call's usage, or `undefined` when the provider reported none. */
  usage: Usage | undefined;
  /** The blocks the call produced, in order (for finish reasons and the captured output). */
  output: readonly ContentBlock[];
  /** The model that answered (a fallback model, a dated version); default: the agent's model. */
  responseModel?: string;
  /** The provider's finish reasons; default: `tool_call` when the output has tool calls, else `stop`. */
  finishReasons?: string[];
}

/**
 * Marks where the reply message stood when a model call started: the usage summed so far and the
 * number of blocks. The call's usage and output are what was added since (core adds each call's usage
 * to the message at its end, and nothing else runs between a call and the hook that follows it).
 */
export class ModelCallWatch {
  private readonly msg: Msg | undefined;
  private readonly blocks: number;
  private readonly input: number;
  private readonly output: number;
  private readonly cacheRead: number;
  private readonly cacheCreation: number;
  private readonly reasoning: number;

  constructor(ctx: PluginContext) {
    const msg = replyMessage(ctx);
    this.msg = msg;
    this.blocks = msg?.content.length ?? 0;
    const usage = msg?.usage;
    this.input = usage?.inputTokens ?? 0;
    this.output = usage?.outputTokens ?? 0;
    this.cacheRead = usage?.cacheInputTokens ?? 0;
    this.cacheCreation = usage?.cacheCreationInputTokens ?? 0;
    this.reasoning = usage?.reasoningTokens ?? 0;
  }

  /** What the call added to the reply message. */
  outcome(ctx: PluginContext): ModelCallOutcome {
    const msg = replyMessage(ctx);
    // A different message object means the reply's message was replaced under the call: nothing to read.
    if (!msg || msg !== this.msg) return { usage: undefined, output: [] };
    const usage = msg.usage;
    const delta: Usage = {
      inputTokens: (usage?.inputTokens ?? 0) - this.input,
      outputTokens: (usage?.outputTokens ?? 0) - this.output,
      cacheInputTokens: (usage?.cacheInputTokens ?? 0) - this.cacheRead,
      cacheCreationInputTokens: (usage?.cacheCreationInputTokens ?? 0) - this.cacheCreation,
      reasoningTokens: (usage?.reasoningTokens ?? 0) - this.reasoning,
    };
    const reported = delta.inputTokens > 0 || delta.outputTokens > 0;
    return { usage: reported ? delta : undefined, output: msg.content.slice(this.blocks) };
  }
}

/** The current reply's message in the context (it is normally the last message). */
export function replyMessage(ctx: PluginContext): Msg | undefined {
  const id = ctx.reply.id;
  const context = ctx.state.context;
  for (let i = context.length - 1; i >= 0; i--) if (context[i]!.id === id) return context[i];
  return undefined;
}
