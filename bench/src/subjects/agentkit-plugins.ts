import type { Plugin } from '@agentkit/core';
import { contextPlugin } from '@agentkit/context';
import { injection } from '@agentkit/injection';
import { structuredOutput } from '@agentkit/structured-output';

/** S6: injection + context + structured-output, with their defaults, fresh per agent. */
export function allPlugins(): Plugin[] {
  return [injection(), contextPlugin(), structuredOutput()] as Plugin[];
}
