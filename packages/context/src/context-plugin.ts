import {
  type Agent,
  type ChatModel,
  type CompressionCapability,
  ConfigError,
  type DataBlock,
  type HintBlock,
  type Msg,
  newId,
  type Plugin,
  type PluginContext,
  type TextBlock,
  TokenCounter,
  type ToolSchema,
  toolSchemas,
} from '@agentkit/core';
import { COMPRESS_CONTEXT_TOOL_NAME, createCompressContextTool } from './compress-context-tool';
import { type ContextConfig, type ResolvedContextConfig, resolveContextConfig } from './context-config';
import { ContextBusyError } from './errors';
import { isOffloader, type Offloader } from './offloader';
import { type CompressionOutcome, type CompressionTarget, runCompression } from './run-compression';
import { splitToolResult, truncationNote, withTruncationNote } from './split-tool-result';

/** The plugin's name (its hints' `source`, its errors' attribution). */
export const CONTEXT_PLUGIN_NAME = '@agentkit/context';

/** Options of {@link contextPlugin}: the {@link ContextConfig} fields and an optional offloader. */
export interface ContextPluginOptions extends ContextConfig {
  /** Where compressed messages, cut-off tool output and old images go (e.g. `new FileOffloader({ directory })`). */
  offloader?: Offloader | undefined;
}

/**
 * What `compress` needs of an agent (an `Agent` from `@agentkit/core` fits); `compressContext` finds the
 * agent's own context plugin among `plugins`.
 */
export type CompressibleAgent = Pick<
  Agent,
  | 'name'
  | 'model'
  | 'systemPrompt'
  | 'state'
  | 'tools'
  | 'isReplying'
  | 'countTokens'
  | 'streamModel'
  | 'logger'
> &
  Partial<Pick<Agent, 'plugins'>>;

/** Options of a manual compression. */
export interface CompressContextOptions {
  /** Configuration for this call only, merged over the plugin's (validated the same way). */
  config?: ContextConfig | undefined;
  /** Guidance for this summary only (e.g. "keep every file path"); never persisted. */
  instructions?: HintBlock | string | undefined;
  /** Aborts the summary call. */
  signal?: AbortSignal | undefined;
}

/** The context plugin, with its configuration and manual compression. */
export interface ContextPlugin extends Plugin {
  /** The effective configuration (fields shared through the `compression` capability are read live). */
  readonly config: Readonly<ResolvedContextConfig>;
  readonly offloader: Offloader | undefined;
  /**
   * Compresses an agent's context now: limits images, and when the input
   * reaches `triggerRatio × contextSize`, summarises the older messages. Call it between replies or while a
   * reply is paused. Throws `ContextBusyError` while the agent is replying, `ContextThresholdError` when the
   * system prompt (and summary) alone reach the threshold, `ContextCompressionError` when the summary fails
   * and the fallback is off (the state is then left as it was), `ConfigError` for a bad `config`.
   */
  compress(agent: CompressibleAgent, options?: CompressContextOptions): Promise<CompressionOutcome>;
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

/** Manual-compression instructions: absent, a string, or a hint block (text or text/data parts). */
function isInstructions(value: unknown): value is CompressContextOptions['instructions'] {
  if (value === undefined || typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null) return false;
  const block = value as Partial<HintBlock>;
  return block.type === 'hint' && (typeof block.hint === 'string' || Array.isArray(block.hint));
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

  /** A compression inside a reply: everything goes through the kernel's plugin context. */
  const targetOf = (
    ctx: PluginContext,
    view: { systemPrompt: string; tools: readonly ToolSchema[] },
    config: ResolvedContextConfig,
    signal?: AbortSignal,
  ): CompressionTarget => ({
    state: ctx.state,
    model: ctx.model,
    systemPrompt: view.systemPrompt,
    tools: view.tools,
    agentName: ctx.agentName,
    config,
    offloader,
    countTokens: (input) => ctx.countTokens(input),
    replaceContext: (next) => ctx.replaceContext(next),
    streamModel: (request) => ctx.streamModel(request),
    usageRecorded: true,
    signal: signal ?? ctx.signal,
    logger: ctx.logger,
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

  // Made only for an agent that gets it: most do not, and a plugin per session should cost little.
  const compressTool = base.compressionToolEnabled
    ? createCompressContextTool(async ({ plugin: ctx, toolCallId, signal }) => {
        const config = effective();
        const ratio = Math.max(0, config.triggerRatio - config.contextBufferRatio);
        const outcome = await runCompression(
          targetOf(ctx, { systemPrompt: ctx.systemPrompt, tools: toolSchemas(ctx.tools) }, config, signal),
          {
            threshold: ratio * ctx.model.contextSize,
            fallbackToTruncation: false,
            keepToolCallIds: [toolCallId],
            currentTokens: () => ctx.countTokens(),
          },
        );
        report(ctx, outcome, 'tool');
        return outcome.compressed;
      })
    : undefined;

  const plugin: ContextPlugin = {
    name: CONTEXT_PLUGIN_NAME,
    // Compression runs before other plugins' beforeInference hooks, so injected hints see the new context.
    enforce: 'pre',
    provides: { compression },
    ...(compressTool ? { tools: [compressTool] } : {}),
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
    },
    hooks: {
      async beforeInference({ ctx, request }) {
        const outcome = await runCompression(
          targetOf(ctx, { systemPrompt: request.systemPrompt, tools: request.tools }, effective()),
          { currentTokens: () => ctx.countTokens() },
        );
        report(ctx, outcome, 'auto');
        // Nothing to return: `ctx.replaceContext` makes the kernel rebuild request.messages from the state.
      },
      beforeTool({ toolCall, tool }) {
        // The agent manages its own context: always allowed.
        if (toolCall.name === COMPRESS_CONTEXT_TOOL_NAME && tool !== undefined && tool === compressTool)
          return { decision: 'allow' };
      },
      async afterTool({ ctx, result }) {
        const limit = base.toolResultLimit;
        // A counter of its own: counting a bare result through the kernel's counter would replace its cached
        // count of the system prompt and tool schemas, to be redone at the next model call.
        const counter = counterFor(ctx.model);
        const split = splitToolResult(result, limit, (blocks) =>
          counter.count({ systemPrompt: '', messages: [blocksMsg(blocks)], tools: NO_TOOLS }),
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
      if (agent.isReplying) throw new ContextBusyError(agent.name);
      if (!isInstructions(opts.instructions))
        throw new ConfigError("@agentkit/context: 'instructions' must be a string or a hint block.", {
          field: 'instructions',
        });
      const config = resolveContextConfig(opts.config, effective());
      const state = agent.state;
      return runCompression(
        {
          state,
          model: agent.model,
          systemPrompt: agent.systemPrompt,
          tools: toolSchemas(agent.tools),
          agentName: agent.name,
          config,
          offloader,
          countTokens: (input) => agent.countTokens(input),
          replaceContext: ({ summary, context }) => {
            state.summary = summary;
            state.context = context;
          },
          streamModel: (request) => agent.streamModel(request),
          signal: opts.signal,
          logger: agent.logger,
          hintSource: CONTEXT_PLUGIN_NAME,
          // A reply may start while the summary is written (replies do not wait for a compression).
          isBusy: () => agent.isReplying,
        },
        { instructions: opts.instructions, currentTokens: () => agent.countTokens() },
      );
    },
  };
  return plugin;
}

/**
 * A token counter per model for tool results (outside the kernel's requests), shared by every instance of
 * the plugin. Weak, so agents and models built per request do not leak.
 */
const counters = new WeakMap<ChatModel, TokenCounter>();
function counterFor(model: ChatModel): TokenCounter {
  let counter = counters.get(model);
  if (!counter) counters.set(model, (counter = new TokenCounter(model)));
  return counter;
}
