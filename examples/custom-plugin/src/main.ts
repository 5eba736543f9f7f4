/**
 * The token-budget guard in action: a research agent with a scripted model that would happily search
 * forever. Reply 1 stays within budget, reply 2 gets the "nearly spent" hint and is stopped at the limit
 * (its last search denied, one final answer without tools), reply 3 is refused before any model call.
 */
import { Agent, type AgentEvent, defineTool, getText } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { tokenBudget } from './token-budget.js';
import { readTokenBudget } from './token-budget-state.js';

const search = defineTool<{ q: string }>({
  name: 'search',
  description: 'Search the web',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  execute: ({ q }) => `3 results for "${q}"`,
});

const searching = (q: string, tokens: number) => [
  toolCallChunk('search', { q }),
  usageChunk({ inputTokens: tokens - 20, outputTokens: 20 }),
];
const answering = (text: string, tokens: number) => [
  ...textChunks(text),
  usageChunk({ inputTokens: tokens - 30, outputTokens: 30 }),
];

const model = new ScriptedModel([
  // reply 1: 700 tokens
  searching('token budgets', 300),
  answering('A token budget caps what an agent may spend.', 400),
  // reply 2: crosses 80 % (warning), then the limit
  searching('llm pricing', 500),
  searching('llm pricing 2025', 800),
  searching('llm pricing per region', 600),
  answering('Prices differ by provider; I stopped here to stay within the budget.', 450),
  // reply 3 would start here, but it is refused
  answering('never sent', 10),
]);

const agent = new Agent({
  name: 'researcher',
  systemPrompt: 'You research questions with the search tool.',
  model,
  tools: [search],
  plugins: [tokenBudget({ limit: 2_500, warnAt: 0.8 })],
});

for (const question of ['What is a token budget?', 'Compare LLM prices.', 'And one more question?']) {
  console.log(`\nuser › ${question}`);
  for await (const item of agent.replyStream(question, { yieldFinalMsg: true })) {
    if (!('type' in item)) {
      const { spent, replies } = readTokenBudget(agent.state);
      console.log(
        `  ${item.finishedReason === 'completed' ? '✓' : '✗'} ${getText(item) ?? `(ended: ${item.finishedReason})`}`,
      );
      console.log(`  budget: ${spent} of 2500 tokens spent after ${replies} replies`);
      continue;
    }
    const event = item as AgentEvent;
    if (event.type === 'TOOL_RESULT_END') console.log(`  ← search ${event.state}`);
    if (event.type === 'HINT_BLOCK')
      console.log(`  ⓘ ${String(event.hint).replace(/<\/?token-budget>/g, '')}`);
    if (event.type === 'MODEL_CALL_START') console.log('  · model call');
  }
}
