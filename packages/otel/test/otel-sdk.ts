import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/** A real SDK pipeline kept in memory: what the spans and metrics tests read. */
export interface TestSdk {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The data points of a histogram, each with its attributes. */
  histogram(name: string): Promise<Array<DataPoint<Histogram>>>;
  shutdown(): Promise<void>;
}

/** A tracer provider with an in-memory exporter and a meter provider with an in-memory metric reader. */
export function testSdk(): TestSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    async histogram(name) {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []) as Array<DataPoint<Histogram>>;
    },
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The one span named `name` (fails the test when there is not exactly one). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span '${name}', found ${found.length}: ${names(spans)}`);
  return found[0]!;
}

/** Span names, for messages. */
export function names(spans: readonly ReadableSpan[]): string {
  return spans.map((s) => s.name).join(', ');
}

/** The data point whose attributes include all of `match`. */
export function point(points: Array<DataPoint<Histogram>>, match: Attributes): DataPoint<Histogram> {
  const found = points.filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v));
  if (found.length !== 1)
    throw new Error(
      `expected one data point with ${JSON.stringify(match)}, found ${found.length} of ${JSON.stringify(points.map((p) => p.attributes))}`,
    );
  return found[0]!;
}
