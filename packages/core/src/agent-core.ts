// Types only: what an agent shares with its replies, and what a reply shares with its turns and with
// plugin contexts. Kept apart so the files that implement them never import each other.
import type { AgentLimits } from './agent-limits';
import type { ContentBlock, HintBlock } from './blocks';
import type { Capabilities } from './capabilities';
import type { Checkpointer } from './checkpointer';
import type { AgentEvent } from './events';
import type { HookDriver, HookScope } from './hook-driver';
import type { JSONObject } from './json';
import type { ChatModel, ModelChunk, ModelRequest, ToolSchema } from './model';
import type { Msg } from './msg';
import type { ModelPlan } from './open-model-stream';
import type { Logger, Plugin } from './plugin';
import type { EventSink } from './reply-stream';
import type { AgentState } from './state';
import type { TokenCalibration } from './token-calibration';
import type { TokenCounter } from './token-count';
import type { AnyTool } from './tool';

/** The parts of an agent a reply run needs. */
export interface AgentCore extends ModelPlan {
  name: string;
  systemPrompt: string;
  model: ChatModel;
  tools: ReadonlyMap<string, AnyTool>;
  toolOwners: ReadonlyMap<string, Plugin<any>>;
  plugins: readonly Plugin<any>[];
  driver: HookDriver;
  state: AgentState;
  counter: TokenCounter;
  /** Calibration of token counts by what the provider reported for the last request. */
  tokens: TokenCalibration;
  /** The schemas of `tools`, built on first use. */
  toolSchemas: ToolSchema[] | undefined;
  /** The compression summary as the message that leads the model input, built when the summary changes. */
  summaryLead: { summary: AgentState['summary']; msg: Msg } | undefined;
  maxIters: number;
  /** Limits against a misbehaving model. */
  limits: AgentLimits;
  logger: Logger;
  /**
   * The agent's last reply run, kept after it ended. Nothing reads it: it keeps one run (and its plugin
   * contexts) alive, because V8 drops the hidden classes no live object uses after two major GCs, and
   * with them the optimized reply loop — an idle agent's next replies then ran in a lower tier (+30 % per
   * turn in bench S2, which measures right after a full GC).
   */
  lastReply: ActiveReply | undefined;
  capabilities: Partial<Capabilities>;
}

/** What a plugin context reaches through to the running (or last) reply. `ReplyRun` implements it. */
export interface RunHandle {
  readonly state: AgentState;
  readonly signal: AbortSignal;
  readonly toolList: readonly AnyTool[];
  addHint(hint: HintBlock['hint'], source: string | null, streamed: boolean): HintBlock;
  finishReply(result?: {
    reason?: 'completed' | 'exceed_max_iters';
    structuredOutput?: unknown;
    text?: string;
  }): void;
  emitCustom(name: string, value: JSONObject): void;
  replaceContext(next: { summary: AgentState['summary']; context: Msg[] }): void;
  countState(): number;
  /** A model call of `plugin` (`ctx.streamModel`): a model call of the reply while it runs. */
  streamModel(plugin: Plugin<any>, request: ModelRequest): AsyncGenerator<ModelChunk>;
}

/** A running reply as its turns (model turn, tool turn, pause and end) see it. `ReplyRun` implements it. */
export interface ActiveReply extends RunHandle, HookScope {
  readonly core: AgentCore;
  /** The reply message; a compression that summarised all of it away swaps in a fresh one with its id. */
  readonly msg: Msg;
  /** The consumer of a streamed reply; `undefined` for `reply()`. */
  readonly sink?: EventSink<AgentEvent>;
  /** The tools of this run: the agent's, plus any a `beforeReply` hook mounted. */
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** Which plugin mounted a tool, so its tools get that plugin's context. */
  readonly toolOwners: ReadonlyMap<string, Plugin<any>>;
  /** Every tool-call id of this reply, including calls a compression moved out of the message. */
  readonly callIds: Set<string>;
  /** Blocks of this reply that a compression removed from the context (the returned message keeps them). */
  readonly compressedBlocks: readonly ContentBlock[];
  /** Set by `replaceContext`; the model turn resets and reads it around each `beforeInference` hook. */
  contextReplaced: boolean;
  /** Saves the state where side effects happen (`ReplyOptions.checkpoint`); `undefined` without one. */
  readonly checkpointer: Checkpointer | undefined;
  /** Calls whose result this run started: any other running result was left by a process that stopped. */
  readonly startedHere: Set<string>;
  /** Applies an event to the reply message and streams it. */
  record(event: AgentEvent): void;
  /** Streams an event without applying it (already applied, or not about the message). */
  publish(event: AgentEvent): void;
  /** The schemas of this run's tools. */
  toolSchemas(): ToolSchema[];
}
