import { type ChatModel, ConfigError, definePlugin, type Plugin, type PluginContext } from '@agentkit/core';
import { ProxyTracerProvider, type TracerProvider, trace } from '@opentelemetry/api';
import { version } from '../package.json';
import { GenAiMetrics } from './genai-metrics';
import { checkOtelOptions, type OtelOptions } from './otel-options';
import { providerName } from './provider-name';
import { ReplyTrace, type TraceSettings } from './reply-trace';
import { GENAI_SCHEMA_URL } from './semconv';
import { latestExperimentalRequested } from './stability-opt-in';

/** The plugin's name: its reply-data namespace (the paused run's trace context) and instrumentation scope. */
export const OTEL_PLUGIN_NAME = '@agentkit/otel';

/**
 * OpenTelemetry traces and metrics of an agent's replies, following the GenAI semantic conventions
 * (v1.41.1): an `invoke_agent {agent}` span per run of a reply, with a `chat {model}` span per model call
 * and an `execute_tool {tool}` span per tool call as children, and the `gen_ai.client.token.usage` and
 * `gen_ai.client.operation.duration` histograms. Uses `@opentelemetry/api` only: bring your own SDK and
 * exporter; without one, the plugin costs next to nothing. Message content is recorded only with
 * `captureContent: true`. A reply paused in one process and resumed in another links to the paused
 * run's trace (its context is kept in the reply's plugin data, part of the persisted state).
 *
 * Install it first (its hooks order themselves: they observe, they never decide).
 * @throws {ConfigError} naming the option when the options are invalid, or (when the agent is built)
 * when `provider` gives no name for the agent's model.
 * @example
 * const agent = new Agent({ name: 'support', model, plugins: [otel({ captureContent: false })] });
 */
export function otel(options: OtelOptions = {}): Plugin {
  checkOtelOptions(options);
  const scope = { name: OTEL_PLUGIN_NAME, version, schemaUrl: GENAI_SCHEMA_URL };
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(scope.name, scope.version, {
    schemaUrl: scope.schemaUrl,
  });
  const providers = new WeakMap<ChatModel, string>();
  const given = options.provider;
  const providerOf = (model: ChatModel): string => {
    let name = providers.get(model);
    if (name === undefined) {
      name = given === undefined ? providerName(model) : typeof given === 'string' ? given : given(model);
      if (typeof name !== 'string' || name === '')
        throw new ConfigError(
          `otel: provider(model) must return a non-empty string; it returned ${JSON.stringify(name)} for '${model.name}'.`,
          { field: 'otel.provider' },
        );
      providers.set(model, name);
    }
    return name;
  };
  const metrics = new GenAiMetrics(options.meterProvider, scope);
  const settings: TraceSettings = {
    tracer,
    metrics,
    provider: providerOf,
    captureContent: options.captureContent ?? false,
    legacyAttributes: !(
      options.latestExperimental ??
      latestExperimentalRequested(globalThis.process?.env?.OTEL_SEMCONV_STABILITY_OPT_IN)
    ),
    resume: options.resume ?? 'link',
  };
  // The run being traced, per agent (a plugin's ctx is one object per agent, which runs one reply at a
  // time); `null` once tracing failed in this run.
  const runs = new WeakMap<PluginContext, ReplyTrace | null>();
  // Tracing must never break a reply: a failure here is logged, and the reply goes on untraced.
  const guard = (ctx: PluginContext, hook: string, body: () => void): void => {
    try {
      body();
    } catch (error) {
      runs.set(ctx, null);
      ctx.logger.error(
        `[${OTEL_PLUGIN_NAME}] tracing failed in '${hook}'; this reply is not traced further.`,
        error,
      );
    }
  };

  // Without an SDK there is nothing to record, yet a hook that does nothing still costs its call (about
  // 0.2 µs each, 7 per tool round trip): an agent built while no SDK is registered gets no hooks at all.
  const observed = () =>
    options.tracerProvider !== undefined ||
    options.meterProvider !== undefined ||
    !isNoopTracerProvider(trace.getTracerProvider()) ||
    metrics.current() !== undefined;
  const hooks: Plugin['hooks'] = {
    // First among `beforeReply` hooks, so the run's span covers theirs.
    beforeReply: {
      order: 'pre',
      handler({ ctx, input, options }) {
        guard(ctx, 'beforeReply', () => runs.set(ctx, new ReplyTrace(settings, ctx, input, options)));
      },
    },
    // Last among `beforeInference` hooks: the request as sent, right before the model call.
    beforeInference: {
      order: 'post',
      handler({ ctx, request }) {
        guard(ctx, 'beforeInference', () => runs.get(ctx)?.modelCallStarts(ctx, request));
      },
    },
    // First: a hook that decides stops the ones after it, and every call must be seen.
    beforeTool: {
      order: 'pre',
      handler({ ctx, toolCall, tool }) {
        guard(ctx, 'beforeTool', () => runs.get(ctx)?.toolStarts(ctx, toolCall, tool));
      },
    },
    // Last: the result as saved.
    afterTool: {
      order: 'post',
      handler({ ctx, toolCall, result }) {
        guard(ctx, 'afterTool', () => runs.get(ctx)?.toolEnds(ctx, toolCall, result));
      },
    },
    beforeFinish: {
      order: 'pre',
      handler({ ctx }) {
        guard(ctx, 'beforeFinish', () => runs.get(ctx)?.stepDone(ctx));
      },
    },
    onPause({ ctx, awaiting }) {
      guard(ctx, 'onPause', () => {
        const run = runs.get(ctx);
        runs.delete(ctx);
        run?.paused(ctx, awaiting);
      });
    },
    onReplyEnd({ ctx, message, finishedReason }) {
      guard(ctx, 'onReplyEnd', () => {
        const run = runs.get(ctx);
        runs.delete(ctx);
        if (run === null) return;
        // A paused reply ended by an interrupt runs no `beforeReply`: its run starts and ends here.
        (run ?? new ReplyTrace(settings, ctx, undefined)).ended(ctx, message, finishedReason);
      });
    },
  };

  return definePlugin({
    name: OTEL_PLUGIN_NAME,
    setup(ctx) {
      providerOf(ctx.model);
    },
    /** Read once when an agent is built: its hooks, or none when no SDK is registered by then. */
    get hooks() {
      return observed() ? hooks : undefined;
    },
  });
}

const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether `provider` is the API's global proxy with no SDK behind it. */
function isNoopTracerProvider(provider: TracerProvider): boolean {
  return provider instanceof ProxyTracerProvider && provider.getDelegate() === NOOP_TRACER_PROVIDER;
}
