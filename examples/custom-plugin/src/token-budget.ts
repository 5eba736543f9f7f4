import { type AgentState, definePlugin, type Plugin, type PluginContext, type Usage } from '@agentkit/core';
import { resolveTokenBudgetOptions, type TokenBudgetOptions } from './token-budget-options.js';
import {
  emptyTokenBudgetState,
  parseTokenBudgetState,
  TOKEN_BUDGET_PLUGIN_NAME,
  type TokenBudgetState,
} from './token-budget-state.js';

/** What the guard tells other plugins, through core's capabilities (never by importing this package). */
export interface TokenBudgetCapability {
  /** The configured limit. */
  readonly limit: number;
  /** Tokens spent by the replies of `state` that have ended. */
  spent(state: AgentState): number;
}

// A third-party capability, added to core's typed registry by declaration merging.
declare module '@agentkit/core' {
  interface Capabilities {
    'token-budget': TokenBudgetCapability;
  }
}

/** The context this plugin's hooks get: `getState()` is typed by the state slot. */
type Ctx = PluginContext<TokenBudgetState>;

/** Per-reply bookkeeping (kept in the reply's plugin data, so it survives a pause and a reload). */
interface ReplyData {
  /** The reply message's usage when last looked at. */
  seen: number;
  /** Usage of an earlier reply message that a compression plugin replaced. */
  carried: number;
  warned: boolean;
  /** The final, tool-less model call has been granted. */
  wrapUp: boolean;
}

/** The hint that asks the model to finish soon. */
export function warningHint(spent: number, limit: number): string {
  return (
    `<token-budget>You have used ${spent} of your ${limit} tokens (${Math.round((100 * spent) / limit)}%). ` +
    'Finish the task soon and avoid unnecessary tool calls.</token-budget>'
  );
}

/** The hint of the final, tool-less model call. */
export function exhaustedHint(spent: number, limit: number): string {
  return (
    `<token-budget>The token budget is spent (${spent} of ${limit} tokens). Tools are disabled: ` +
    'answer now, briefly, with what you have.</token-budget>'
  );
}

/**
 * A token-budget guard, written only against `@agentkit/core`'s public API.
 *
 * - Spending of ended replies accumulates in the plugin's state slot (`{ spent, replies }`), so the budget
 *   holds across replies and processes; the running reply's spending is read from its message's usage.
 * - At `warnAt × limit` the model gets a hint (once per reply) and a `token-budget.warning` event is emitted.
 * - When spending passes the limit in a reply, the calls of that response are denied, and the model gets
 *   one last call with `toolChoice: 'none'` and a hint to answer now (`token-budget.exceeded` event); a
 *   model that still asks for tools ends the reply with an error.
 * - A new reply that starts with the budget already spent is refused before any model call (it ends with
 *   `finishedReason: 'error'`).
 * @example
 * const agent = new Agent({ name: 'a', model, tools, plugins: [tokenBudget({ limit: 50_000 })] });
 */
export function tokenBudget(options: TokenBudgetOptions): Plugin<TokenBudgetState> {
  const { limit, warnAt, count } = resolveTokenBudgetOptions(options);

  const replyData = (ctx: Ctx): ReplyData => ({
    seen: 0,
    carried: 0,
    warned: false,
    wrapUp: false,
    ...ctx.getReplyData<ReplyData>(),
  });
  /** Tokens of the current reply so far. The reply's message id is the reply id (`ReplyPosition.id`). */
  const replySpend = (ctx: Ctx, usage: Usage | null | undefined): number => {
    const data = replyData(ctx);
    const current = usage ? count(usage) : 0;
    if (current < data.seen) data.carried += data.seen; // the message was replaced (compression)
    data.seen = current;
    ctx.setReplyData(data);
    return data.carried + current;
  };
  const spentBefore = (ctx: Ctx) => ctx.getState().spent;
  const spentNow = (ctx: Ctx) =>
    spentBefore(ctx) + replySpend(ctx, ctx.state.context.findLast((m) => m.id === ctx.reply.id)?.usage);

  return definePlugin<TokenBudgetState>({
    name: TOKEN_BUDGET_PLUGIN_NAME,
    version: '0.1.0',
    state: { initial: emptyTokenBudgetState, schema: parseTokenBudgetState },
    provides: {
      'token-budget': {
        limit,
        spent: (state) =>
          parseTokenBudgetState(state.plugins[TOKEN_BUDGET_PLUGIN_NAME] ?? emptyTokenBudgetState()).spent,
      },
    },
    hooks: {
      beforeReply({ ctx, input }) {
        const spent = spentBefore(ctx);
        if (input.kind !== 'resume' && spent >= limit) {
          // A limit reached, not a failure: the reply ends before any model call.
          ctx.emit('token-budget.refused', { spent, limit });
          ctx.finishReply({ reason: 'exceed_max_iters' });
        }
      },
      beforeInference({ ctx, request }) {
        const spent = spentNow(ctx);
        const data = replyData(ctx);
        if (spent >= limit) {
          if (data.wrapUp) {
            // The model still asked for tools after its final call: stop here.
            ctx.emit('token-budget.stopped', { spent, limit });
            ctx.finishReply({ reason: 'exceed_max_iters' });
            return;
          }
          ctx.setReplyData({ ...data, wrapUp: true });
          ctx.addHint(exhaustedHint(spent, limit));
          ctx.emit('token-budget.exceeded', { spent, limit });
          // Tools stay declared (some providers reject a tool history without them) but cannot be chosen.
          return { ...request, toolChoice: 'none' };
        }
        if (spent >= warnAt * limit && !data.warned) {
          ctx.setReplyData({ ...data, warned: true });
          ctx.addHint(warningHint(spent, limit));
          ctx.emit('token-budget.warning', { spent, limit });
        }
      },
      beforeTool({ ctx }) {
        const spent = spentNow(ctx);
        if (spent >= limit)
          return {
            decision: 'deny',
            message: `The token budget is spent (${spent} of ${limit} tokens); no more tool calls. Answer with what you have.`,
          };
      },
      onReplyEnd({ ctx, message }) {
        const state = ctx.getState();
        ctx.setState({ spent: state.spent + replySpend(ctx, message.usage), replies: state.replies + 1 });
      },
    },
  });
}
