import type { Subject } from './subject';

/** The subjects, by id; each is imported only in the process that measures it. */
export const SUBJECTS = [
  'bare',
  'agentkit',
  'agentkit+plugins',
  'ai-sdk',
  'openai-agents',
  'langgraph',
] as const;

/**
 * S6 with `@agentkit/otel` added (scenario S6OTEL, not part of the peer comparison): without an
 * OpenTelemetry SDK registered, and with the SDK exporting to memory.
 */
export const OTEL_SUBJECTS = [
  'agentkit+plugins',
  'agentkit+plugins+otel',
  'agentkit+plugins+otel-sdk',
] as const;

/** A subject id. */
export type SubjectId = (typeof SUBJECTS)[number] | (typeof OTEL_SUBJECTS)[number];

/** The peers (the frameworks agentkit is compared with). */
export const PEERS: readonly SubjectId[] = ['ai-sdk', 'openai-agents', 'langgraph'];

/** Loads one subject. */
export async function loadSubject(id: SubjectId): Promise<Subject> {
  switch (id) {
    case 'bare':
      return (await import('./bare')).bare;
    case 'agentkit':
      return (await import('./agentkit')).agentkitSubject();
    case 'agentkit+plugins': {
      const { agentkitSubject } = await import('./agentkit');
      const { allPlugins } = await import('./agentkit-plugins');
      return agentkitSubject(allPlugins);
    }
    case 'agentkit+plugins+otel':
    case 'agentkit+plugins+otel-sdk': {
      const { agentkitSubject } = await import('./agentkit');
      const { otelPlugins } = await import('./agentkit-otel');
      return agentkitSubject(otelPlugins(id === 'agentkit+plugins+otel-sdk'));
    }
    case 'ai-sdk':
      return (await import('./ai-sdk')).aiSdk;
    case 'openai-agents':
      return (await import('./openai-agents')).openaiAgents;
    case 'langgraph':
      return (await import('./langgraph')).langgraph;
  }
}
