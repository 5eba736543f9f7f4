import { ConfigError, definePlugin, type Plugin, type PluginContext } from '@agentkit/core';
import { warnContextBufferRatioDeprecated } from './deprecation';
import {
  type InjectionConfig,
  type ResolvedInjectionConfig,
  resolveInjectionConfig,
} from './injection-config';
import { createContextScanner } from './context-scanner';
import { collectRuntimeState, renderRuntimeState } from './runtime-state';
import { isValidTimeZone } from './time-zone';

/** The plugin's name. */
export const INJECTION_PLUGIN_NAME = '@agentkit/injection';

/** Compression defaults used when no plugin provides the `compression` capability. */
const DEFAULT_TRIGGER_RATIO = 0.8;
const DEFAULT_CONTEXT_BUFFER_RATIO = 0.2;

/** The index of the reply's message in the context (normally the last one), or -1. */
function replyIndex(ctx: PluginContext): number {
  const { context } = ctx.state;
  for (let i = context.length - 1; i >= 0; i--) if (context[i]!.id === ctx.reply.id) return i;
  return -1;
}

/**
 * Injects the runtime state before every model call: current time and timezone, unfinished tasks,
 * context usage near the compression threshold, and repeated identical tool failures. An injection is a
 * hint block persisted in the reply message (so it stays in context and prompt caching keeps working)
 * and, with `emitHintEvent`, a `HINT_BLOCK` event. Every decision is read from the context, so a
 * reloaded agent continues exactly where it was.
 *
 * Reads the `tasks` capability (`@agentkit/tasks`) and the `compression` capability
 * (`@agentkit/context`) when present; works without either.
 *
 * @throws ConfigError naming the field when the configuration is invalid (here, or when the agent is
 * built for checks that need the other plugins).
 * @example
 * const agent = new Agent({ name: 'friday', model, plugins: [injection({ timezone: 'Asia/Shanghai', timeInterval: 1 })] });
 */
export function injection(config: InjectionConfig = {}): Plugin {
  const resolved: ResolvedInjectionConfig = resolveInjectionConfig(config);
  if (resolved.contextBufferRatio !== undefined) warnContextBufferRatioDeprecated();
  // Remembers per context array what its final messages say, so a model call reads only what is new.
  const scanner = createContextScanner();

  return definePlugin({
    name: INJECTION_PLUGIN_NAME,
    setup(ctx) {
      const compression = ctx.capability('compression');
      // Deprecated option: it overrides the context configuration's value (read by compression too).
      if (resolved.contextBufferRatio !== undefined && compression)
        compression.contextBufferRatio = resolved.contextBufferRatio;
      const trigger = compression?.triggerRatio ?? DEFAULT_TRIGGER_RATIO;
      const buffer =
        compression?.contextBufferRatio ?? resolved.contextBufferRatio ?? DEFAULT_CONTEXT_BUFFER_RATIO;
      if (resolved.injectRuntimeState && !(buffer < trigger)) {
        const field =
          resolved.contextBufferRatio !== undefined
            ? 'injection.contextBufferRatio'
            : 'context.contextBufferRatio';
        throw new ConfigError(
          `Invalid configuration: '${field}' (${buffer}) must be smaller than the compression trigger ratio (${trigger}).`,
          { field },
        );
      }
      if (resolved.injectRuntimeState && !isValidTimeZone(resolved.timezone))
        ctx.logger.warn(
          `[${INJECTION_PLUGIN_NAME}] Unknown timezone '${resolved.timezone}': the injected time is computed in UTC (and labelled '${resolved.timezone}').`,
        );
    },
    hooks: {
      beforeInference({ ctx }) {
        if (!resolved.injectRuntimeState) return;
        const tasks = ctx.capability('tasks');
        const { context } = ctx.state;
        const reply = replyIndex(ctx);
        const fields = collectRuntimeState({
          config: resolved,
          context,
          replyMessage: reply >= 0 ? context[reply] : undefined,
          scanner,
          openFrom: reply >= 0 ? reply : undefined,
          iteration: ctx.reply.iteration,
          now: resolved.now(),
          tasks: tasks?.counts(ctx.state) ?? { pending: 0, inProgress: 0 },
          taskToolNames: tasks?.toolNames,
          contextUsage: () => {
            const compression = ctx.capability('compression');
            return {
              inputTokens: ctx.countTokens(),
              contextSize: ctx.model.contextSize,
              triggerRatio: compression?.triggerRatio ?? DEFAULT_TRIGGER_RATIO,
              contextBufferRatio:
                compression?.contextBufferRatio ??
                resolved.contextBufferRatio ??
                DEFAULT_CONTEXT_BUFFER_RATIO,
              compressionToolEnabled: compression?.compressionToolEnabled ?? false,
            };
          },
        });
        if (fields.length === 0) return;
        ctx.addHint(renderRuntimeState(fields, resolved.template), {
          source: resolved.injectionSource,
          emit: resolved.emitHintEvent,
        });
      },
    },
  });
}
