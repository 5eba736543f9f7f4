import {
  type AgentState,
  type ChatModel,
  type CompressionCapability,
  ConfigError,
  type DataBlock,
  type HintBlock,
  type Logger,
  type Msg,
  newId,
  type Plugin,
  type PluginContext,
  type TextBlock,
  TokenCounter,
  type Tool,
  type ToolSchema,
  toolJsonSchema,
} from '@agentkit/core';
import { COMPRESS_CONTEXT_TOOL_NAME, createCompressContextTool } from './compress-context-tool';
import { type ContextConfig, type ResolvedContextConfig, resolveContextConfig } from './context-config';
import { isOffloader, type Offloader } from './offloader';
import { type CompressionOutcome, type CompressionTarget, runCompression } from './run-compression';
import { splitToolResult, truncationNote, withTruncationNote } from './split-tool-result';

/** The plugin's name (its hints' `source`, its errors' attribution). */
export const CONTEXT_PLUGIN_NAME = '@agentkit/context';

/** Options of {@link contextPlugin}: the {@link ContextConfig} fields and an optional offloader. */
export interface ContextPluginOptions extends ContextConfig {
  /** Where compressed messages, cut-off tool output and old images go (e.g. `new FileOffloader({ directory })`). */
  offloader?: Offloader;
}

/** What `compress` needs of an agent (an `Agent` from `@agentkit/core` fits). */
export interface CompressibleAgent {
  readonly name: string;
  readonly model: ChatModel;
  /** The live state. */
  readonly state: AgentState;
  readonly tools: readonly Tool[];
  /** The agent's system prompt, when the agent exposes it (else the one seen at setup is used). */
  readonly systemPrompt?: string;
}

/** Options of a manual compression. */
export interface CompressContextOptions {
  /** Configuration for this call only, merged over the plugin's (validated the same way). */
  config?: ContextConfig;
  /** Guidance for this summary only (e.g. "keep every file path"); never persisted. */
  instructions?: HintBlock | string;
  /** Aborts the summary call. */
  signal?: AbortSignal;
}

/** The context plugin, with its configuration and manual compression. */
export interface ContextPlugin extends Plugin {
  /** The effective configuration (fields shared through the `compression` capability are read live). */
  readonly config: Readonly<ResolvedContextConfig>;
  readonly offloader: Offloader | undefined;
  /**
   * Compresses an agent's context now (reference `compress_context`): limits images, and when the input
   * reaches `triggerRatio × contextSize`, summarises the older messages. Do not call it while the agent is
   * replying. Throws `ContextThresholdError` when the system prompt (and summary) alone reach the threshold,
   * `ContextCompressionError` when the summary fails and the fallback is off, `ConfigError` for a bad `config`.
   */
  compress(agent: CompressibleAgent, options?: CompressContextOptions): Promise<CompressionOutcome>;
}

interface LiveRun {
  ctx: PluginContext;
  systemPrompt: string;
  tools: readonly ToolSchema[];
}

const NO_TOOLS: readonly ToolSchema[] = [];

function blocksMsg(blocks: ReadonlyArray<TextBlock | DataBlock>): Msg {
  return {
    id: '',
    name: '',
    role: 'assistant',
    content: [...blocks],
    metadata: {},
    createdAt: '',
    usage: null,
    finishedAt: null,
    finishedReason: null,
    structuredOutput: null,
    error: null,
  };
}

/**
 * Context management (`@agentkit/context`): before every model call, limits the images and, when the input
 * reaches `triggerRatio × contextSize` tokens, replaces the older messages by a structured summary written by
 * the model (the newest `reserveRatio × contextSize` tokens stay word for word; a tool call and its result
 * are never separated). Tool results above `toolResultLimit` tokens are cut, with the rest offloaded when an
 * offloader is set. With `compressionToolEnabled`, the agent gets the `CompressContext` tool.
 *
 * Provides the `compression` capability (`triggerRatio`, `contextBufferRatio`, `compressionToolEnabled`),
 * which `@agentkit/injection` reads to tell the agent about the threshold.
 * @example
 * const context = contextPlugin({ triggerRatio: 0.7, offloader: new FileOffloader({ directory: '.offload' }) });
 * const agent = new Agent({ name: 'helper', model, plugins: [context] });
 * await context.compress(agent, { instructions: 'Keep every file path.' });
 */
export function contextPlugin(options: ContextPluginOptions = {}): ContextPlugin {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('@agentkit/context: options must be an object.');
  const { offloader, ...config } = options;
  if (offloader !== undefined && !isOffloader(offloader))
    throw new ConfigError(
      "@agentkit/context: 'offloader' must implement offloadDataBlock, offloadContext and offloadToolResult.",
      { field: 'offloader' },
    );
  const base = resolveContextConfig(config);
  // One mutable object shared with other plugins; its fields are read at call time.
  const compression: CompressionCapability = {
    triggerRatio: base.triggerRatio,
    contextBufferRatio: base.contextBufferRatio,
    compressionToolEnabled: base.compressionToolEnabled,
  };
  const effective = (): ResolvedContextConfig => ({
    ...base,
    triggerRatio: compression.triggerRatio,
    contextBufferRatio: compression.contextBufferRatio,
  });
  const live = new WeakMap<object, LiveRun>();
  const setups: Array<{ agentName: string; model: ChatModel; systemPrompt: string; logger: Logger }> = [];

  const targetOf = (
    run: LiveRun,
    config: ResolvedContextConfig,
    signal?: AbortSignal,
  ): CompressionTarget => ({
    state: run.ctx.state,
    model: run.ctx.model,
    systemPrompt: run.systemPrompt,
    tools: run.tools,
    agentName: run.ctx.agentName,
    config,
    offloader,
    countTokens: (input) => run.ctx.countTokens(input),
    replaceContext: (next) => run.ctx.replaceContext(next),
    signal: signal ?? run.ctx.signal,
    logger: run.ctx.logger,
    hintSource: CONTEXT_PLUGIN_NAME,
  });

  const report = (ctx: PluginContext, outcome: CompressionOutcome, trigger: string) => {
    if (!outcome.compressed) return;
    ctx.emit('context.compressed', {
      trigger,
      fallback: outcome.fallback,
      tokensBefore: outcome.tokensBefore,
      compressedMessages: outcome.compressedMessages,
      keptMessages: outcome.keptMessages,
      offloadPath: outcome.offloadPath ?? null,
    });
  };

  const compressTool = createCompressContextTool(async ({ toolCallId, state, signal }) => {
    const run = live.get(state);
    // WORKAROUND(kernel): ToolContext has no model, system prompt, token counter or replaceContext, so the
    // tool uses the PluginContext this plugin saw last for the same agent state (beforeInference/beforeTool).
    if (!run)
      throw new Error(
        'the agent context is not available to CompressContext (the context plugin did not run).',
      );
    const config = effective();
    const ratio = Math.max(0, config.triggerRatio - config.contextBufferRatio);
    const outcome = await runCompression(targetOf(run, config, signal), {
      threshold: ratio * run.ctx.model.contextSize,
      fallbackToTruncation: false,
      keepToolCallIds: [toolCallId],
      currentTokens: () => run.ctx.countTokens(),
    });
    report(run.ctx, outcome, 'tool');
    return outcome.compressed;
  });

  const plugin: ContextPlugin = {
    name: CONTEXT_PLUGIN_NAME,
    // Compression runs before other plugins' beforeInference hooks, so injected hints see the new context.
    enforce: 'pre',
    provides: { compression },
    tools: base.compressionToolEnabled ? [compressTool] : [],
    get config() {
      return effective();
    },
    offloader,
    setup(ctx) {
      const size = ctx.model.contextSize;
      if (typeof size !== 'number' || !(size > 0))
        throw new ConfigError(
          `@agentkit/context needs the model's contextSize (a positive number); '${ctx.model.name}' reports ${String(size)}.`,
          { field: 'model.contextSize' },
        );
      setups.push({
        agentName: ctx.agentName,
        model: ctx.model,
        systemPrompt: ctx.systemPrompt,
        logger: ctx.logger,
      });
    },
    hooks: {
      async beforeInference({ ctx, request }) {
        const run: LiveRun = { ctx, systemPrompt: request.systemPrompt, tools: request.tools };
        live.set(ctx.state, run);
        const outcome = await runCompression(targetOf(run, effective()), {
          currentTokens: () => ctx.countTokens(),
        });
        report(ctx, outcome, 'auto');
        // The kernel rebuilds request.messages from the state when a hook changed it.
      },
      beforeTool({ ctx, toolCall, tool }) {
        if (toolCall.name !== COMPRESS_CONTEXT_TOOL_NAME || tool !== compressTool) return;
        // A resumed reply runs queued calls without a model call first: take the context from here.
        const prev = live.get(ctx.state);
        const tools =
          prev?.tools ??
          ctx.tools.map((t) => ({
            name: t.name,
            description: t.description,
            inputSchema: toolJsonSchema(t),
          }));
        live.set(ctx.state, { ctx, systemPrompt: prev?.systemPrompt ?? ctx.systemPrompt, tools });
        // The agent manages its own context: always allowed.
        return { decision: 'allow' };
      },
      onReplyEnd({ ctx }) {
        live.delete(ctx.state);
      },
      async afterTool({ ctx, result }) {
        const limit = base.toolResultLimit;
        const split = splitToolResult(result, limit, (blocks) =>
          ctx.countTokens({ systemPrompt: '', messages: [blocksMsg(blocks)], tools: NO_TOOLS }),
        );
        if (!split) return;
        let path: string | undefined;
        if (offloader) {
          try {
            path = await offloader.offloadToolResult(ctx.state.sessionId, split.offloaded);
          } catch (error) {
            ctx.logger.warn('@agentkit/context: offloading a truncated tool result failed.', error);
          }
        }
        return withTruncationNote(split.kept, truncationNote(path), newId);
      },
    },
    async compress(agent, opts = {}) {
      const config = resolveContextConfig(opts.config, effective());
      const setup = setups.find((s) => s.agentName === agent.name && s.model === agent.model);
      const systemPrompt = agent.systemPrompt ?? setup?.systemPrompt ?? '';
      const counter = new TokenCounter(agent.model);
      const tools: ToolSchema[] = agent.tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: toolJsonSchema(t),
      }));
      const state = agent.state;
      return runCompression(
        {
          state,
          model: agent.model,
          systemPrompt,
          tools,
          agentName: agent.name,
          config,
          offloader,
          countTokens: (input) => counter.count(input),
          replaceContext: ({ summary, context }) => {
            state.summary = summary;
            state.context = context;
          },
          signal: opts.signal,
          logger: setup?.logger ?? console,
          hintSource: CONTEXT_PLUGIN_NAME,
        },
        { instructions: opts.instructions },
      );
    },
  };
  return plugin;
}
