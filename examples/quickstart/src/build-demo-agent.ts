import { Agent, type AgentState, type ChatModel } from '@agentkit/core';
import { injection } from '@agentkit/injection';
import { tasks } from '@agentkit/tasks';
import { DEMO_SYSTEM_PROMPT } from './demo-task';
import { sandboxTools } from './sandbox-tools';

/** The name of the demo agent (its messages and events carry it). */
export const DEMO_AGENT_NAME = 'quickstart';

/**
 * The demo agent: the sandbox file tools, `@agentkit/tasks` (task tools whose list lives in the state)
 * and `@agentkit/injection` (the current time and unfinished tasks as persisted hints). Both processes
 * build it the same way; only `state` differs.
 */
export function buildDemoAgent(options: { model: ChatModel; sandbox: string; state: AgentState }): Agent {
  const timezone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  return new Agent({
    name: DEMO_AGENT_NAME,
    systemPrompt: DEMO_SYSTEM_PROMPT,
    model: options.model,
    tools: sandboxTools(options.sandbox),
    plugins: [tasks(), injection({ timezone })],
    state: options.state,
    maxIters: 20,
  });
}
