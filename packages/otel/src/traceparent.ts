import { createTraceState, isSpanContextValid, type SpanContext } from '@opentelemetry/api';

/**
 * A span context as W3C Trace Context headers, the form it is kept in across a pause (plain JSON in the
 * reply's plugin data, so it survives in the persisted state).
 */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

// version 00: 2 hex version, 32 hex trace id, 16 hex span id, 2 hex flags.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The headers of a span context, or `undefined` for an invalid one (no SDK, nothing to link to). */
export function toTraceHeaders(spanContext: SpanContext): TraceHeaders | undefined {
  if (!isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * The remote span context kept in `value` (a {@link TraceHeaders} read back from state), or `undefined`
 * when it holds none or something malformed (a hand-edited or foreign state must not break the reply).
 */
export function fromTraceHeaders(value: unknown): SpanContext | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceparent, tracestate } = value as Partial<Record<keyof TraceHeaders, unknown>>;
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
  if (typeof tracestate === 'string' && tracestate !== '')
    spanContext.traceState = createTraceState(tracestate);
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
