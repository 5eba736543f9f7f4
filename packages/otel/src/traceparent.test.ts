import { createTraceState, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { fromTraceHeaders, toTraceHeaders } from './traceparent';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const spanId = 'b7ad6b7169203331';

describe('trace headers', () => {
  it('round-trips a sampled span context with its trace state', () => {
    const headers = toTraceHeaders({
      traceId,
      spanId,
      traceFlags: TraceFlags.SAMPLED,
      traceState: createTraceState('vendor=a1,other=b2'),
    });
    expect(headers).toEqual({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'vendor=a1,other=b2' });
    expect(fromTraceHeaders(JSON.parse(JSON.stringify(headers)))).toMatchObject({
      traceId,
      spanId,
      traceFlags: 1,
      isRemote: true,
    });
    expect(fromTraceHeaders(headers)?.traceState?.get('other')).toBe('b2');
  });

  it('keeps an unsampled context unsampled and omits an empty trace state', () => {
    const headers = toTraceHeaders({ traceId, spanId, traceFlags: TraceFlags.NONE });
    expect(headers).toEqual({ traceparent: `00-${traceId}-${spanId}-00` });
    expect(fromTraceHeaders(headers)?.traceFlags).toBe(0);
  });

  it('gives nothing for the invalid context of a non-recording span', () => {
    expect(
      toTraceHeaders({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: TraceFlags.NONE }),
    ).toBeUndefined();
  });

  it('ignores malformed stored values instead of throwing', () => {
    for (const value of [
      undefined,
      null,
      'text',
      42,
      {},
      { traceparent: 7 },
      { traceparent: `01-${traceId}-${spanId}-01` },
      { traceparent: `00-${traceId.toUpperCase()}-${spanId}-01` },
      { traceparent: `00-${'0'.repeat(32)}-${spanId}-01` },
      { traceparent: `00-${traceId}-${'0'.repeat(16)}-01` },
      { traceparent: `00-${traceId}-${spanId}-01-extra` },
    ])
      expect(fromTraceHeaders(value)).toBeUndefined();
  });
});
