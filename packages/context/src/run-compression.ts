import {
  type AgentState,
  addUsage,
  type ChatModel,
  ConfigError,
  createMsg,
  emptyUsage,
  type HintBlock,
  type Logger,
  type ModelChunk,
  type ModelRequest,
  type Msg,
  newId,
  type TextBlock,
  type DataBlock,
  type TokenCountInput,
  type ToolSchema,
  type Usage,
} from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import type { ResolvedContextConfig } from './context-config';
import { offloadReminder, TRUNCATION_SUMMARY } from './defaults';
import { ContextBusyError, ContextCompressionError, ContextThresholdError } from './errors';
import { limitContextImages } from './limit-images';
import type { Offloader } from './offloader';
import { renderSummary } from './render-summary';
import { requestSummary, summaryMessages, summaryTool } from './request-summary';
import { splitContext } from './split-context';

/** The summary and context a compression produces. */
export interface ContextReplacement {
  summary: AgentState['summary'];
  context: Msg[];
}

/** Everything a compression works on; built by the plugin hook, the tool and `compressContext(agent)`. */
export interface CompressionTarget {
  /** The live state (read; changed only through `replaceContext`). */
  state: Pick<AgentState, 'summary' | 'context' | 'sessionId' | 'reply'>;
  model: ChatModel;
  /** The system prompt the model sees. */
  systemPrompt: string;
  /** The tool schemas the model sees (they count towards the input). */
  tools: readonly ToolSchema[];
  agentName: string;
  config: ResolvedContextConfig;
  offloader?: Offloader | undefined;
  /** Counts a model input (the kernel's incremental counter). */
  countTokens: (input: TokenCountInput) => number;
  /** Replaces the summary and the context. */
  replaceContext: (next: ContextReplacement) => void;
  /**
   * Streams the summary call. Inside a reply: the plugin context's `streamModel`, so the agent's retries and
   * fallback model apply. Default: `model.stream`.
   */
  streamModel?: ((request: ModelRequest) => AsyncIterable<ModelChunk>) | undefined;
  signal?: AbortSignal | undefined;
  logger?: Logger | undefined;
  /** `source` of hint blocks this package adds (image notes). */
  hintSource: string | null;
  /**
   * True inside a reply: the summary call (made through the plugin context's `streamModel`) is a model call
   * of the reply, whose usage the kernel records (`MODEL_CALL_END`). Otherwise (a manual compression) its
   * usage is added to the last kept message.
   */
  usageRecorded?: boolean | undefined;
  /**
   * True while someone else may change the state (a manual compression: the agent is replying). Checked,
   * with the state itself, before anything is applied: a changed state is never overwritten.
   */
  isBusy?: (() => boolean) | undefined;
}

/** Per-call options of {@link runCompression}. */
export interface CompressionOptions {
  /** Guidance for this summary only; sent as an assistant hint and never persisted. */
  instructions?: HintBlock | string | undefined;
  /** Compress when the input has at least this many tokens. Default `triggerRatio × contextSize`. */
  threshold?: number | undefined;
  /** Overrides `config.compressionFallbackToTruncation`. */
  fallbackToTruncation?: boolean | undefined;
  /** Tool calls that must stay in the context with everything after them (see `splitContext`). */
  keepToolCallIds?: readonly string[] | undefined;
  /** The current input tokens, when the caller has them cheaper (the kernel's `ctx.countTokens()`). */
  currentTokens?: (() => number) | undefined;
}

/** What a compression did. */
export interface CompressionOutcome {
  /** Whether old messages were replaced by a summary (or dropped by the truncation fallback). */
  compressed: boolean;
  /** Whether the summary call failed and the truncation fallback applied. */
  fallback: boolean;
  /** Input tokens before compressing (after the image limit). */
  tokensBefore: number;
  /** How many messages (or message parts) were compressed and kept. */
  compressedMessages: number;
  keptMessages: number;
  /** Where the compressed messages were offloaded, if they were. */
  offloadPath: string | undefined;
  /** Usage of the summary call. */
  usage: Usage | null;
}

/** The summary as the user message the model sees first (or `null` when there is none). */
export function summaryMessage(summary: AgentState['summary']): Msg | null {
  if (summary.length === 0) return null;
  const content: Array<TextBlock | DataBlock> =
    typeof summary === 'string' ? [{ type: 'text', id: 'summary', text: summary }] : summary;
  return createMsg({ role: 'user', name: 'user', content, id: 'summary' });
}

/** The index of the reply's message in the context (normally the last one), or `undefined`. */
function replyIndex(state: CompressionTarget['state']): number | undefined {
  const id = state.reply?.id;
  if (!id) return undefined;
  for (let i = state.context.length - 1; i >= 0; i--) if (state.context[i]!.id === id) return i;
  return undefined;
}

function unfinishedReplyCalls(state: CompressionTarget['state']): string[] {
  const id = state.reply?.id;
  if (!id) return [];
  for (let i = state.context.length - 1; i >= 0; i--) {
    const msg = state.context[i]!;
    if (msg.id !== id) continue;
    return msg.content.filter((b) => b.type === 'tool_call' && b.state !== 'finished').map((b) => b.id);
  }
  return [];
}

/** What a compression read: if it changed while the compression awaited, applying the result could lose it. */
interface ReadState {
  context: Msg[];
  length: number;
  summary: AgentState['summary'];
  /** Index of the reply's message (the one message that changes in place), or -1. */
  replyAt: number;
  replyBlocks: number;
  lastBlocks: number;
}

function readState(state: CompressionTarget['state']): ReadState {
  const context = state.context;
  const replyAt = replyIndex(state) ?? -1;
  return {
    context,
    length: context.length,
    summary: state.summary,
    replyAt,
    replyBlocks: replyAt < 0 ? 0 : context[replyAt]!.content.length,
    lastBlocks: context[context.length - 1]?.content.length ?? 0,
  };
}

/**
 * The messages appended since `read` (e.g. by `agent.observe` or a whole reply that ran meanwhile), or
 * `null` when the state changed in a way a compression result cannot absorb: the context or summary was
 * replaced, or a message it read changed.
 */
function appendedSince(read: ReadState, state: CompressionTarget['state']): Msg[] | null {
  const context = state.context;
  if (context !== read.context || state.summary !== read.summary || context.length < read.length) return null;
  if (read.replyAt >= 0 && context[read.replyAt]!.content.length !== read.replyBlocks) return null;
  if (read.length > 0 && context[read.length - 1]!.content.length !== read.lastBlocks) return null;
  return context.slice(read.length);
}

function hasText(summary: AgentState['summary'], text: string): boolean {
  return typeof summary === 'string'
    ? summary.includes(text)
    : summary.some((b) => b.type === 'text' && b.text.includes(text));
}

/**
 * Runs one compression:
 *
 * 1. limits the images (always, even below the threshold);
 * 2. returns when the input is below the threshold; throws {@link ContextThresholdError} when the context is
 *    empty yet the input reaches it;
 * 3. splits the context (budget `reserveRatio × contextSize`; again with budget 0 when nothing would be
 *    compressed);
 * 4. asks the model for a structured summary of the old part, fed the previous summary (on an overflowing
 *    request that fails, drops the oldest messages and retries once);
 * 5. on failure keeps the previous summary (or a truncation note) when the fallback is on, else throws
 *    {@link ContextCompressionError} and leaves the state as it was;
 * 6. offloads the old part (and says where in the summary), adds the call's usage to the last kept message
 *    (an empty assistant message with the reply id when nothing is kept) unless the kernel records it (inside
 *    a reply), and replaces summary and context.
 */
export async function runCompression(
  target: CompressionTarget,
  options: CompressionOptions = {},
): Promise<CompressionOutcome> {
  const { state, config, model, systemPrompt, tools, countTokens } = target;
  let read = readState(state);
  // Never overwrite what changed while this compression awaited: messages appended meanwhile are kept after
  // the result; a running reply, or any other change, makes it give up (ContextBusyError, nothing changed).
  const appended = (): Msg[] => {
    const added = target.isBusy?.() ? null : appendedSince(read, state);
    if (!added) throw new ContextBusyError(target.agentName, { changed: true });
    return added;
  };
  const images = await limitContextImages(state.context, {
    maxImageNum: config.maxImageNum,
    offloader: target.offloader,
    hintSource: target.hintSource,
    logger: target.logger,
    openFrom: replyIndex(state),
  });
  if (images) target.replaceContext({ summary: state.summary, context: [...images, ...appended()] });
  // What the split below reads (synchronously, up to the summary call).
  if (target.isBusy?.()) throw new ContextBusyError(target.agentName);
  read = readState(state);

  const size = model.contextSize;
  if (typeof size !== 'number' || !(size > 0))
    throw new ConfigError(
      `@agentkit/context needs the model's contextSize (a positive number); '${model.name}' reports ${String(size)}.`,
      {
        field: 'model.contextSize',
      },
    );
  const threshold = options.threshold ?? config.triggerRatio * size;
  const summaryMsg = summaryMessage(state.summary);
  const tokensBefore =
    options.currentTokens?.() ??
    countTokens({
      systemPrompt,
      messages: summaryMsg ? [summaryMsg, ...state.context] : state.context,
      tools,
    });
  const outcome: CompressionOutcome = {
    compressed: false,
    fallback: false,
    tokensBefore,
    compressedMessages: 0,
    keptMessages: state.context.length,
    offloadPath: undefined,
    usage: null,
  };
  if (tokensBefore < threshold) return outcome;
  if (state.context.length === 0)
    throw new ContextThresholdError({
      threshold: Math.floor(threshold),
      tokens: tokensBefore,
      hasSummary: summaryMsg !== null,
    });

  const fixed = countTokens({ systemPrompt, messages: [], tools });
  const baseTokens = summaryMsg ? countTokens({ systemPrompt, messages: [summaryMsg], tools }) : fixed;
  const countMsg = (m: Msg) => countTokens({ systemPrompt, messages: [m], tools }) - fixed;
  // Calls of the current reply that are not finished (a running CompressContext, calls queued after it, calls
  // a paused reply waits for) stay in the context with everything after them, so the reply can go on.
  const keepToolCallIds = [...(options.keepToolCallIds ?? []), ...unfinishedReplyCalls(state)];
  // A reply still running (or paused) goes on in a message with its id; otherwise that message is finished.
  const replyAt = replyIndex(state);
  const replyMsg = replyAt === undefined ? undefined : state.context[replyAt];
  const replyOpen = replyMsg !== undefined && replyMsg.finishedAt === null;
  const replyId = state.reply?.id;
  const splitWith = (budget: number) =>
    splitContext(state.context, { baseTokens, budget, countMsg, keepToolCallIds });
  let split = splitWith(config.reserveRatio * size);
  if (split.toCompress.length === 0) split = splitWith(0);
  const { toCompress, toKeep } = split;
  if (toCompress.length === 0) return outcome;

  const instructions: HintBlock | null =
    options.instructions === undefined
      ? null
      : typeof options.instructions === 'string'
        ? {
            type: 'hint',
            id: newId(),
            hint: options.instructions,
            source: 'user',
            createdAt: new Date().toISOString(),
          }
        : options.instructions;
  const signal = target.signal ?? new AbortController().signal;
  const request = {
    stream: target.streamModel ?? ((r: ModelRequest) => model.stream(r)),
    systemPrompt,
    summaryMsg,
    messages: toCompress,
    instructions,
    agentName: target.agentName,
    compressionPrompt: config.compressionPrompt,
    summarySchema: config.summarySchema,
    signal,
  };
  const schemaTools = [summaryTool(config.summarySchema)];
  const requestTokens = (msgs: readonly Msg[]) =>
    countTokens({
      systemPrompt,
      messages: summaryMessages({ ...request, messages: msgs }),
      tools: schemaTools,
    });
  const overflow = requestTokens(toCompress) > size;

  let summary: AgentState['summary'];
  let usage: Usage | null = null;
  try {
    let response: Awaited<ReturnType<typeof requestSummary>>;
    try {
      response = await requestSummary(request);
    } catch (error) {
      if (!overflow || signal.aborted) throw error;
      // The request did not fit: drop the oldest messages until it is below the threshold, then retry once.
      let msgs = toCompress.slice(1);
      while (msgs.length > 0 && requestTokens(msgs) >= size * config.triggerRatio) msgs = msgs.slice(1);
      response = await requestSummary({ ...request, messages: msgs });
    }
    usage = response.usage;
    summary = renderSummary(config.summaryTemplate, response.fields);
    // A summary that alone reaches the threshold would be compressed again at once, and fed to every later
    // summary call (which the previous summary is part of): the session could never get below it again.
    const lead = summaryMessage(summary);
    const summaryTokens = lead ? countTokens({ systemPrompt: '', messages: [lead], tools: [] }) : 0;
    if (summaryTokens >= threshold)
      throw new Error(
        `The model's summary is too long (${summaryTokens} tokens; the compression threshold is ${Math.floor(threshold)}).`,
      );
  } catch (error) {
    if (signal.aborted) throw error;
    const fallback = options.fallbackToTruncation ?? config.compressionFallbackToTruncation;
    const reason = error instanceof Error ? error.message : String(error);
    if (!fallback)
      throw new ContextCompressionError(`Generating the compression summary failed: ${reason}`, {
        cause: error,
      });
    target.logger?.warn(
      `@agentkit/context: the summary call failed (${reason}); truncating the context instead.`,
    );
    summary = state.summary.length > 0 ? state.summary : TRUNCATION_SUMMARY;
    outcome.fallback = true;
  }

  // From here on the compression is applied even if the reply is interrupted: the summary exists.
  appended();
  if (target.offloader) {
    try {
      const path = await target.offloader.offloadContext(state.sessionId, toCompress);
      outcome.offloadPath = path;
      const reminder = offloadReminder(path);
      if (!hasText(summary, reminder))
        summary =
          typeof summary === 'string'
            ? `${summary}\n${reminder}`
            : [...summary, { type: 'text', id: newId(), text: `\n${reminder}` }];
    } catch (error) {
      target.logger?.warn('@agentkit/context: offloading the compressed context failed.', error);
    }
  }

  const context = [...toKeep];
  if (usage && !target.usageRecorded) {
    const last = context[context.length - 1];
    if (last)
      context[context.length - 1] = {
        ...last,
        usage: addUsage(normalizeUsage(last.usage ?? emptyUsage()), usage),
      };
    else
      context.push(
        createMsg({
          role: 'assistant',
          name: target.agentName,
          content: [],
          id: replyId ?? newId(),
          usage: { ...usage },
          ...(replyOpen
            ? {}
            : {
                finishedAt: replyMsg?.finishedAt ?? new Date().toISOString(),
                finishedReason: replyMsg?.finishedReason ?? null,
              }),
        }),
      );
  }
  context.push(...appended());
  target.replaceContext({ summary, context });
  outcome.compressed = true;
  outcome.compressedMessages = toCompress.length;
  outcome.keptMessages = context.length;
  outcome.usage = usage;
  return outcome;
}
