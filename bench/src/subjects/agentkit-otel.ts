import type { Plugin } from '@agentkit/core';
import { otel } from '@agentkit/otel';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { allPlugins } from './agentkit-plugins';

/** The SDK's in-memory exporter, emptied now and then so a long warm-up does not fill the heap with spans. */
class BoundedInMemorySpanExporter extends InMemorySpanExporter {
  override export(spans: ReadableSpan[], done: Parameters<InMemorySpanExporter['export']>[1]): void {
    if (this.getFinishedSpans().length > 10_000) this.reset();
    super.export(spans, done);
  }
}

/**
 * S6's plugins plus `@agentkit/otel`, fresh per agent. Without `sdk`, no OpenTelemetry SDK is registered
 * (the API's no-op providers); with it, a tracer provider with the batch span processor (what production
 * uses) and an in-memory exporter, and a meter provider with a metric reader, as an application sets up.
 */
export function otelPlugins(sdk: boolean): () => Plugin[] {
  let options = {};
  if (sdk) {
    const tracerProvider = new TracerProvider({
      spanProcessors: [new BatchSpanProcessor({ exporter: new BoundedInMemorySpanExporter() })],
    });
    const meterProvider = new MeterProvider({
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
          exportIntervalMillis: 1000,
        }),
      ],
    });
    options = { tracerProvider, meterProvider };
  }
  return () => [otel(options), ...allPlugins()];
}
