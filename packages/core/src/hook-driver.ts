import { ConfigError } from './errors/config-error';
import type { HookName, Hooks, Plugin } from './plugin';

/** A registered handler with the plugin it belongs to. */
export interface BoundHandler<K extends HookName> {
  plugin: Plugin<any>;
  fn: Hooks[K];
}

const rank = { pre: 0, normal: 1, post: 2 } as const;

/**
 * Holds each hook's handlers, sorted once when the agent is built: per-hook `order` if given, else the
 * plugin's `enforce`, then registration order. Hooks nobody registered cost nothing.
 */
export class HookDriver {
  private readonly byHook = new Map<HookName, BoundHandler<any>[]>();

  constructor(plugins: readonly Plugin<any>[]) {
    const entries: Array<{ hook: HookName; rank: number; index: number; bound: BoundHandler<any> }> = [];
    plugins.forEach((plugin, index) => {
      for (const [hook, value] of Object.entries(plugin.hooks ?? {})) {
        if (!value) continue;
        const fn = typeof value === 'function' ? value : value.handler;
        const order = typeof value === 'function' ? undefined : value.order;
        if (typeof fn !== 'function')
          throw new ConfigError(
            `Plugin '${plugin.name}': hook '${hook}' needs a function (or { handler, order }).`,
            {
              field: `plugins.${plugin.name}.hooks.${hook}`,
            },
          );
        entries.push({
          hook: hook as HookName,
          rank: rank[order ?? plugin.enforce ?? 'normal'],
          index,
          bound: { plugin, fn },
        });
      }
    });
    entries.sort((a, b) => a.rank - b.rank || a.index - b.index);
    for (const e of entries) {
      const list = this.byHook.get(e.hook) ?? [];
      list.push(e.bound);
      this.byHook.set(e.hook, list);
    }
  }

  /** The sorted handlers of a hook (empty when none). */
  get<K extends HookName>(hook: K): readonly BoundHandler<K>[] {
    return (this.byHook.get(hook) as BoundHandler<K>[] | undefined) ?? [];
  }
}
