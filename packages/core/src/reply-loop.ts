import type { AgentCore } from './agent-core';
import { Checkpointer } from './checkpointer';
import { classifyError } from './error-info';
import { ReplyPausedError, ResumeMismatchError } from './errors/input-errors';
import type { AgentEvent, ExternalExecutionResultEvent, UserConfirmResultEvent } from './events';
import { newId } from './ids';
import type { ToolChoice } from './model';
import { modelTurn } from './model-turn';
import { createMsg, findToolResult, type Msg } from './msg';
import type { ReplyInput, ReplyOptions } from './plugin';
import { beforeFinish, end, pause, resume, suspend } from './reply-ending';
import {
  type AgentInput,
  awaitingCalls,
  checkReplyId,
  checkReplyOptions,
  checkResume,
  findReplyMsg,
  isUnfinished,
  normalizeInput,
} from './reply-input';
import { withDeadline } from './reply-deadline';
import { ReplyScope } from './reply-scope';
import type { EventSink } from './reply-stream';
import { settleStaleCalls } from './stale-calls';
import { runToolCalls } from './tool-turn';

/**
 * One run of a reply: a new reply, a continuation, or the resumption of a paused one. It accepts the
 * input and alternates tool turns (`tool-turn.ts`) and model turns (`model-turn.ts`) until the reply
 * pauses or ends (`reply-ending.ts`). This class keeps that orchestration only; the reply's state and
 * what plugin contexts reach are its base, `ReplyScope` (`reply-scope.ts`). Every event is applied to
 * the persisted reply message with the same reducer clients use (`applyEvent`) and, when a consumer
 * streams, pushed to it at that same moment — so the stream order is the order of the changes, and
 * replaying the stream rebuilds exactly the persisted message. `run()` resolves to the reply message,
 * or `null` for an interrupt sent to an idle agent.
 */
export class ReplyRun extends ReplyScope {
  constructor(
    core: AgentCore,
    private readonly input: AgentInput,
    private readonly options: ReplyOptions,
    sink?: EventSink<AgentEvent>,
  ) {
    super(core, checkReplyOptions(options, core.plugins).signal, sink);
    const checkpoint = options.checkpoint;
    if (checkpoint) this.checkpointer = new Checkpointer(() => checkpoint(this.state));
  }

  /** The input was accepted: this run owns `msg`, and plugin contexts act on it from now on. */
  private adopt(msg: Msg): void {
    this.msg = msg;
    // Taken now, before a hook may compress earlier calls out of the message (a resumed reply has some).
    for (const b of msg.content) if (b.type === 'tool_call') this.callIds.add(b.id);
    this.core.lastReply = this;
  }

  run(): Promise<Msg | null> {
    return withDeadline(this.controller, this.options.timeoutMs, () => this.accept()).finally(() => {
      this.closed = true;
    });
  }

  /** Accepts the input (a new reply, a resume, a recovery), then runs the loop. */
  private async accept(): Promise<Msg | null> {
    const normalized = normalizeInput(this.input);
    let replyInput: ReplyInput;
    if ('event' in normalized) {
      const event = normalized.event;
      const msg = findReplyMsg(this.state);
      const awaiting = awaitingCalls(msg);
      if (event.type === 'USER_INTERRUPT') {
        // Nothing paused or left unfinished: a silent no-op.
        if (!msg || (awaiting.length === 0 && !isUnfinished(msg))) return msg ?? null;
        this.adopt(msg);
        return end(this, 'interrupted');
      }
      if (!msg || awaiting.length === 0)
        throw new ResumeMismatchError(`Received ${event.type} but no reply is paused.`);
      checkResume(event, msg);
      this.adopt(msg);
      replyInput = { kind: 'resume', event };
    } else if (normalized.messages.length === 0 && isUnfinished(findReplyMsg(this.state))) {
      // The process running this reply stopped mid-reply: continue it from its last checkpoint.
      this.adopt(findReplyMsg(this.state)!);
      replyInput = { kind: 'recover' };
      this.publishSnapshot();
    } else {
      const current = findReplyMsg(this.state);
      const paused = awaitingCalls(current);
      if (paused.length) throw new ReplyPausedError(paused.map((c) => c.id));
      const replyId = this.options.replyId ?? newId();
      if (this.options.replyId !== undefined) checkReplyId(replyId, this.state);
      if (isUnfinished(current)) {
        // New input after a reply whose process stopped: that reply ends as interrupted first.
        this.adopt(current!);
        await end(this, 'interrupted');
        this.forgetMessage();
      }
      this.state.context.push(...normalized.messages);
      this.state.reply = { id: replyId, iteration: 0, data: {}, finish: null };
      this.adopt(createMsg({ role: 'assistant', name: this.core.name, content: [], id: replyId }));
      this.state.context.push(this.msg);
      replyInput = normalized.messages.length
        ? { kind: 'new', messages: normalized.messages }
        : { kind: 'continue' };
      this.publish({
        type: 'REPLY_START',
        replyId,
        sessionId: this.state.sessionId,
        name: this.core.name,
        role: 'assistant',
        createdAt: this.msg.createdAt,
      });
      // The input is accepted: make it durable while the model works (a process dying now loses nothing).
      this.checkpointer?.saveSoon();
    }

    try {
      if (this.core.driver.has('beforeReply')) {
        const mounted = await this.core.driver.collect('beforeReply', this, (ctx) => ({
          ctx,
          input: replyInput,
          options: this.options,
        }));
        for (const { plugin, value } of mounted)
          for (const tool of value.tools ?? []) this.mount(tool, plugin);
      }
      if (replyInput.kind === 'resume')
        await resume(this, replyInput.event as UserConfirmResultEvent | ExternalExecutionResultEvent);
      if (replyInput.kind === 'resume' || replyInput.kind === 'recover')
        if ((await settleStaleCalls(this, this.openCalls())) === 'interrupted')
          return end(this, 'interrupted');
      return await this.loop();
    } catch (error) {
      if (this.signal.aborted) return end(this, 'interrupted');
      this.core.logger.error(`agentkit: reply '${this.msg.id}' of agent '${this.core.name}' failed`, error);
      return end(this, 'error', classifyError(error));
    }
  }

  /** Tool turns, then model turns, until the reply pauses or ends. */
  private async loop(): Promise<Msg> {
    const position = this.state.reply!;
    const maxIters = this.core.maxIters;
    let answered = false;
    let hint: string | undefined;
    let toolChoice: ToolChoice | undefined;
    // A safety net against a loop that makes no progress (a state no path resolves): never spin forever.
    const passLimit = 4 * maxIters + 20;
    for (let pass = 0; ; pass++) {
      if (this.signal.aborted) return end(this, 'interrupted');
      if (this.options.suspendSignal?.aborted) return suspend(this);
      if (pass > passLimit)
        return end(this, 'error', {
          type: 'internal',
          message: `The reply made no progress after ${pass} steps; it was stopped.`,
        });
      const open = this.openCalls();
      const awaiting = open.filter((c) => c.state === 'asking' || c.state === 'submitted');
      const executable = open.filter(
        (c) =>
          (c.state === 'allowed' && !findToolResult(this.msg, c.id)) ||
          (c.state === 'pending' && awaiting.length === 0),
      );
      if (executable.length) {
        if ((await runToolCalls(this, executable)) === 'interrupted') return end(this, 'interrupted');
        if (this.openCalls().length === 0) position.iteration++;
        continue;
      }
      if (awaiting.length) return pause(this, awaiting);
      if (position.finish) return end(this, position.finish.reason ?? 'completed');
      if (answered || position.iteration >= maxIters) {
        // A final answer after the limit (a plugin kept the reply going) still ends exceed_max_iters.
        const reason = answered && position.iteration <= maxIters ? 'completed' : 'exceed_max_iters';
        const decision = this.core.driver.has('beforeFinish') ? await beforeFinish(this, reason) : undefined;
        if (!decision) return end(this, reason);
        ({ hint, toolChoice } = decision);
      }
      const outcome = await modelTurn(this, hint, toolChoice);
      if (outcome === 'interrupted') return end(this, 'interrupted');
      answered = outcome === 'answered';
      hint = toolChoice = undefined;
      if (this.openCalls().length === 0) position.iteration++;
    }
  }
}
