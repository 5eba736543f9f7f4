import { type Step, streamDeltas, TextCycle, ToolCycle, questionText, turnText } from '../workload';
import type { Subject } from './subject';

/** The bare message: what a plain loop with no framework keeps. */
interface BareMsg {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCall?: { id: string; name: string; args: string };
  toolCallId?: string;
}

type BareChunk =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; id: string; name: string; args: string };

/** The same zero-latency script as an async generator of chunks. */
async function* bareModel(step: Step, _messages: readonly BareMsg[]): AsyncGenerator<BareChunk> {
  if (step.kind === 'tool')
    yield { type: 'tool_call', id: step.id, name: 'add', args: JSON.stringify({ a: step.a, b: step.b }) };
  else yield { type: 'text', delta: step.text };
}

const tools: Record<string, (input: { a: number; b: number }) => string> = {
  add: ({ a, b }) => String(a + b),
};

/** The physical limit: a plain loop over plain objects, no framework. */
async function loop(cycle: ToolCycle, messages: BareMsg[]): Promise<void> {
  for (;;) {
    let text = '';
    const calls: Array<{ id: string; name: string; args: string }> = [];
    for await (const chunk of bareModel(cycle.next(), messages)) {
      if (chunk.type === 'text') text += chunk.delta;
      else calls.push({ id: chunk.id, name: chunk.name, args: chunk.args });
    }
    if (calls.length === 0) {
      messages.push({ role: 'assistant', content: text });
      return;
    }
    for (const call of calls) {
      messages.push({ role: 'assistant', content: text, toolCall: call });
      const output = tools[call.name]!(JSON.parse(call.args));
      messages.push({ role: 'tool', content: output, toolCallId: call.id });
    }
  }
}

/** The bare-loop baseline. */
export const bare: Subject = {
  async s1(k) {
    const cycle = new ToolCycle(k);
    return async () => {
      await loop(cycle, [{ role: 'user', content: 'Add the numbers.' }]);
    };
  },
  async s2() {
    const cycle = new ToolCycle(1);
    const messages: BareMsg[] = [];
    return async (turn) => {
      messages.push({ role: 'user', content: turnText(turn) });
      await loop(cycle, messages);
    };
  },
  async s3(n) {
    const deltas = streamDeltas(n);
    return async () => {
      async function* stream(): AsyncGenerator<BareChunk> {
        for (const delta of deltas) yield { type: 'text', delta };
      }
      let count = 0;
      let text = '';
      for await (const chunk of stream())
        if (chunk.type === 'text') {
          text += chunk.delta;
          count++;
        }
      if (text.length === 0) throw new Error('no text');
      return count;
    };
  },
  async s4() {
    const cycle = new TextCycle();
    return async (session, turns) => {
      const messages: BareMsg[] = [];
      for (let t = 0; t < turns; t++) {
        messages.push({ role: 'user', content: questionText(session, t) });
        let text = '';
        for await (const chunk of bareModel({ kind: 'text', text: cycle.next() }, messages))
          if (chunk.type === 'text') text += chunk.delta;
        messages.push({ role: 'assistant', content: text });
      }
      return messages;
    };
  },
};
