import {
  CONTEXT_PLUGIN_NAME,
  type CompressContextOptions,
  type CompressibleAgent,
  type ContextPlugin,
  contextPlugin,
} from './context-plugin';
import type { CompressionOutcome } from './run-compression';

/**
 * Compresses an agent's context now (a manual compression, with optional `config` and `instructions`), with
 * the agent's own context plugin — its configuration (trigger, reserve…) and offloader — unless `plugin`
 * names another; an agent without one gets the defaults. `config` overrides either for this call.
 * @example
 * await compressContext(agent, { instructions: 'Keep all file paths and API signatures.' });
 */
export function compressContext(
  agent: CompressibleAgent,
  options: CompressContextOptions & { plugin?: ContextPlugin | undefined } = {},
): Promise<CompressionOutcome> {
  const { plugin, ...rest } = options;
  return (plugin ?? installedContextPlugin(agent) ?? contextPlugin()).compress(agent, rest);
}

/** The context plugin the agent was built with, if any. */
function installedContextPlugin(agent: CompressibleAgent): ContextPlugin | undefined {
  return agent.plugins?.find(
    (p): p is ContextPlugin =>
      p.name === CONTEXT_PLUGIN_NAME && typeof (p as Partial<ContextPlugin>).compress === 'function',
  );
}
