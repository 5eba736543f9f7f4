import { createNoopMeter, type Histogram, type MeterProvider, metrics, ValueType } from '@opentelemetry/api';
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  OPERATION_DURATION_BUCKETS,
  TOKEN_USAGE_BUCKETS,
} from './semconv';

/** The two histograms of the conventions. */
export interface GenAiInstruments {
  /** `gen_ai.client.token.usage` ({token}). */
  tokenUsage: Histogram;
  /** `gen_ai.client.operation.duration` (s). */
  operationDuration: Histogram;
}

/**
 * The instruments of the meter provider in force. The global provider is looked up on each use: an SDK
 * registered after the plugin was made is picked up (the API hands out no proxy meters), and with none
 * registered there is nothing to measure at all.
 */
export class GenAiMetrics {
  private provider: MeterProvider | undefined;
  private instruments: GenAiInstruments | undefined;

  constructor(
    private readonly explicit: MeterProvider | undefined,
    private readonly scope: { name: string; version: string; schemaUrl: string },
  ) {}

  /** The instruments, or `undefined` when the provider is the API's no-op one (no SDK registered). */
  current(): GenAiInstruments | undefined {
    const provider = this.explicit ?? metrics.getMeterProvider();
    if (provider !== this.provider) {
      this.provider = provider;
      const meter = provider.getMeter(this.scope.name, this.scope.version, {
        schemaUrl: this.scope.schemaUrl,
      });
      this.instruments =
        meter === createNoopMeter()
          ? undefined
          : {
              tokenUsage: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
                description: 'Number of input and output tokens used.',
                unit: '{token}',
                valueType: ValueType.INT,
                advice: { explicitBucketBoundaries: [...TOKEN_USAGE_BUCKETS] },
              }),
              operationDuration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
                description: 'GenAI operation duration.',
                unit: 's',
                advice: { explicitBucketBoundaries: [...OPERATION_DURATION_BUCKETS] },
              }),
            };
    }
    return this.instruments;
  }
}
