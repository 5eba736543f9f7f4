import { Agent, defineTool } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { z } from 'zod';
import { otel } from '../src/otel-plugin';
import type { OtelOptions } from '../src/otel-options';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  inputSchema: z.object({ service: z.string() }),
  needsConfirmation: true,
  execute: ({ service }) => `deployed ${service}`,
});

/**
 * The agent of the two-process test: its first model call asks for a deploy that needs confirmation (the
 * reply pauses); an agent built from a saved state answers after the deploy ran.
 */
export function pausingAgent(options: OtelOptions, state?: string): Agent {
  return new Agent({
    name: 'ops',
    model: new ScriptedModel(
      state ? [textChunks('Deployed.')] : [[toolCallChunk('deploy', { service: 'billing' }, 'call_deploy')]],
      { name: 'gpt-5-mini' },
    ),
    tools: [deploy],
    state,
    plugins: [otel(options)],
  });
}
