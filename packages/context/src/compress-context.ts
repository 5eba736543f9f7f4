import {
  type CompressContextOptions,
  type CompressibleAgent,
  type ContextPlugin,
  contextPlugin,
} from './context-plugin';
import type { CompressionOutcome } from './run-compression';

/**
 * Compresses an agent's context now (a manual compression, with optional `config` and `instructions`).
 * Pass the agent's context plugin as `plugin` to use its configuration and offloader;
 * without it the defaults apply (and `config` overrides them).
 * @example
 * await compressContext(agent, { plugin: context, instructions: 'Keep all file paths and API signatures.' });
 */
export function compressContext(
  agent: CompressibleAgent,
  options: CompressContextOptions & { plugin?: ContextPlugin | undefined } = {},
): Promise<CompressionOutcome> {
  const { plugin, ...rest } = options;
  return (plugin ?? contextPlugin()).compress(agent, rest);
}
