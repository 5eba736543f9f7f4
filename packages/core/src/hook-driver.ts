import { ConfigError } from './errors/config-error';
import { PluginHookError } from './errors/plugin-hook-error';
import type { HookHandler, HookName, Hooks, Logger, Plugin, PluginContext } from './plugin';

/** A registered handler with the plugin it belongs to. */
export interface BoundHandler<K extends HookName> {
  plugin: Plugin<any>;
  fn: Hooks[K];
}

/** What calling hooks needs of a reply: each plugin's context, and the signal that turns failures into aborts. */
export interface HookScope {
  readonly signal: AbortSignal;
  pluginContext(plugin: Plugin<any>): PluginContext;
}

/** The event a hook receives. */
export type HookEvent<K extends HookName> = Parameters<Hooks[K]>[0];
/** What a hook may return (its promise unwrapped), `undefined` included. */
export type HookResult<K extends HookName> = Awaited<ReturnType<Hooks[K]>> | undefined;
type Interceptor = 'beforeReply' | 'beforeInference' | 'beforeTool' | 'afterTool' | 'beforeFinish';
type Observer = 'onPause' | 'onReplyEnd';

const rank = { pre: 0, normal: 1, post: 2 } as const;
const NONE: readonly BoundHandler<any>[] = [];

/**
 * Holds each hook's handlers, sorted once when the agent is built (per-hook `order` if given, else the
 * plugin's `enforce`, then registration order), and calls them with one of four strategies — the kinds of
 * core's hook table: {@link collect}, {@link waterfall}, {@link firstDecision} and {@link observe}. Every
 * strategy attributes an interceptor's failure to its plugin and hook (`PluginHookError`) unless the reply
 * was aborted (then the abort passes through untouched), and reports an observer's failure instead of
 * throwing it. Callers check {@link has} first, so a hook nobody registered costs nothing: no event object,
 * no promise.
 */
export class HookDriver {
  private readonly byHook: ReadonlyMap<HookName, readonly BoundHandler<any>[]>;

  constructor(
    plugins: readonly Plugin<any>[],
    private readonly logger: Logger,
    /** The handlers already sorted (an agent's cached `PluginSet`). */
    sorted?: ReadonlyMap<HookName, readonly BoundHandler<any>[]>,
  ) {
    this.byHook = sorted ?? sortHandlers(plugins);
  }

  /** Whether any plugin registered `hook`. */
  has(hook: HookName): boolean {
    return this.byHook.has(hook);
  }

  /** The sorted handlers of a hook (empty when none). */
  handlers<K extends HookName>(hook: K): readonly BoundHandler<K>[] {
    return (this.byHook.get(hook) as BoundHandler<K>[] | undefined) ?? NONE;
  }

  /**
   * Interceptor, all run (`beforeReply`): every handler runs, in order; returns what each one returned,
   * with its plugin (handlers that returned nothing are left out).
   */
  async collect<K extends Interceptor>(
    hook: K,
    scope: HookScope,
    event: (ctx: PluginContext) => HookEvent<K>,
  ): Promise<Array<{ plugin: Plugin<any>; value: Exclude<HookResult<K>, void | undefined> }>> {
    const results: Array<{ plugin: Plugin<any>; value: Exclude<HookResult<K>, void | undefined> }> = [];
    for (const { plugin, fn } of this.handlers(hook)) {
      let value: HookResult<K>;
      try {
        value = await (fn as (e: HookEvent<K>) => HookResult<K>)(event(scope.pluginContext(plugin)));
      } catch (error) {
        throw interceptorFailure(error, plugin, hook, scope.signal);
      }
      if (value !== undefined && value !== null)
        results.push({ plugin, value: value as Exclude<HookResult<K>, void | undefined> });
    }
    return results;
  }

  /**
   * Interceptor, waterfall (`beforeInference`, `afterTool`): each handler gets the value the one before it
   * left; `next` turns what a handler returned into that value (default: its replacement, else the value it
   * was given).
   */
  async waterfall<K extends Interceptor, V>(
    hook: K,
    scope: HookScope,
    value: V,
    event: (ctx: PluginContext, value: V) => HookEvent<K>,
    next: (returned: HookResult<K>, given: V) => V = replacementOr,
  ): Promise<V> {
    for (const { plugin, fn } of this.handlers(hook)) {
      let returned: HookResult<K>;
      try {
        returned = await (fn as (e: HookEvent<K>) => HookResult<K>)(
          event(scope.pluginContext(plugin), value),
        );
      } catch (error) {
        throw interceptorFailure(error, plugin, hook, scope.signal);
      }
      value = next(returned, value);
    }
    return value;
  }

  /**
   * Interceptor, first decision wins (`beforeTool`, `beforeFinish`): handlers run in order until `decide`
   * finds a decision in what one returned; the later ones do not run. `undefined` when none decided.
   */
  async firstDecision<K extends Interceptor, D>(
    hook: K,
    scope: HookScope,
    event: (ctx: PluginContext) => HookEvent<K>,
    decide: (returned: HookResult<K>) => D | undefined,
  ): Promise<D | undefined> {
    for (const { plugin, fn } of this.handlers(hook)) {
      let returned: HookResult<K>;
      try {
        returned = await (fn as (e: HookEvent<K>) => HookResult<K>)(event(scope.pluginContext(plugin)));
      } catch (error) {
        throw interceptorFailure(error, plugin, hook, scope.signal);
      }
      const decision = decide(returned);
      if (decision !== undefined) return decision;
    }
    return undefined;
  }

  /**
   * Observer (`onPause`, `onReplyEnd`): every handler runs concurrently; a failure is logged and handed to
   * the `onError` hooks (in order; their own failures are only logged), never thrown.
   */
  async observe<K extends Observer>(
    hook: K,
    scope: HookScope,
    event: (ctx: PluginContext) => HookEvent<K>,
  ): Promise<void> {
    await Promise.all(
      this.handlers(hook).map(async ({ plugin, fn }) => {
        try {
          await (fn as (e: HookEvent<K>) => unknown)(event(scope.pluginContext(plugin)));
        } catch (error) {
          await this.reportObserverError(plugin.name, hook, error);
        }
      }),
    );
  }

  private async reportObserverError(plugin: string, hook: string, error: unknown): Promise<void> {
    this.logger.error(`agentkit: plugin '${plugin}' failed in observer hook '${hook}'`, error);
    for (const { plugin: p, fn } of this.handlers('onError')) {
      try {
        await fn({ error, plugin, hook });
      } catch (e) {
        this.logger.error(`agentkit: plugin '${p.name}' failed in 'onError'`, e);
      }
    }
  }
}

/** A waterfall's default step: the handler's replacement, else the value it was given. */
function replacementOr<V>(returned: unknown, given: V): V {
  return (returned as V | undefined) || given;
}

/** An interceptor's failure, attributed to its plugin and hook — or the abort itself when the reply was aborted. */
function interceptorFailure(
  error: unknown,
  plugin: Plugin<any>,
  hook: HookName,
  signal: AbortSignal,
): unknown {
  return signal.aborted ? error : new PluginHookError(plugin.name, hook, error);
}

/**
 * The handlers of `plugins` by hook, sorted: per-hook `order` if given, else the plugin's `enforce`, then
 * registration order. Throws `ConfigError` for a hook that is not a function.
 */
export function sortHandlers(
  plugins: readonly Plugin<any>[],
): ReadonlyMap<HookName, readonly BoundHandler<any>[]> {
  const byHook = new Map<HookName, BoundHandler<any>[]>();
  // One pass per rank (pre, normal, post), each in registration order: sorted without sorting.
  for (let pass = 0; pass < 3; pass++)
    for (const plugin of plugins) {
      const hooks = plugin.hooks as Record<string, HookHandler<unknown> | undefined> | undefined;
      for (const hook in hooks) {
        const value = hooks[hook];
        if (!value) continue;
        const fn = typeof value === 'function' ? value : (value as { handler?: unknown }).handler;
        if (typeof fn !== 'function')
          throw new ConfigError(
            `Plugin '${plugin.name}': hook '${hook}' needs a function (or { handler, order }).`,
            { field: `plugins.${plugin.name}.hooks.${hook}` },
          );
        const order = typeof value === 'function' ? undefined : (value as { order?: 'pre' | 'post' }).order;
        if (rank[order ?? plugin.enforce ?? 'normal'] !== pass) continue;
        const bound = { plugin, fn } as BoundHandler<any>;
        const list = byHook.get(hook as HookName);
        if (list) list.push(bound);
        else byHook.set(hook as HookName, [bound]);
      }
    }
  // Exact-size lists (a list grown by push keeps room for 16 more): they live as long as the agent.
  for (const [hook, list] of byHook) if (list.length > 1) byHook.set(hook, list.slice());
  return byHook;
}
