import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { ChatModel, ModelChunk } from './model';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
};

/** A model that streams every answer as `deltas` one-word text deltas (and a tool call's input likewise). */
function wordModel(deltas: number): ChatModel {
  let calls = 0;
  return {
    name: 'words',
    contextSize: 1_000_000,
    async *stream(): AsyncIterable<ModelChunk> {
      const n = calls++;
      for (let i = 0; i < deltas; i++) yield { type: 'thinking', delta: `step ${i} of ${n}; ` };
      for (let i = 0; i < deltas; i++) yield { type: 'text', delta: `word${i} ` };
    },
  };
}

describe('flatten', () => {
  it('should hold a streamed block as flat text, not as one rope cell per delta', async () => {
    const agent = new Agent({ name: 'a', model: wordModel(400) });
    await agent.reply('warm up');
    const before = heapAfterGc();
    for (let i = 0; i < 40; i++) await agent.reply(`question ${i}`);
    const bytes = heapAfterGc() - before;
    let chars = 0;
    for (const m of agent.state.context.slice(2))
      for (const b of m.content)
        chars += b.type === 'text' ? b.text.length : b.type === 'thinking' ? b.thinking.length : 0;
    expect(chars).toBeGreaterThan(40 * 400 * 20);
    // Flat: about one byte per character plus the messages. A rope costs a 32-byte cell per delta (×3–6).
    expect(bytes / chars).toBeLessThan(2.5);
  });
});
