import { Agent, type AgentState, type Msg, type TextBlock } from '@agentkit/core';
import { fullGc } from './stats';
import { agentkitSubject } from './subjects/agentkit';
import { ZeroLatencyModel } from './subjects/zero-latency-model';
import { questionText, TextCycle } from './workload';

/**
 * Where S4's bytes go: the same agentkit sessions, each message copied into richer and richer shapes,
 * from the bare loop's `{ role, content }` up to the full `Msg`. Only the copies are kept, so each row is
 * the heap those shapes need for the same strings.
 */
const shapes: Record<string, (m: Msg) => unknown> = {
  '{ role, content: string }': (m) => ({ role: m.role, content: text(m) }),
  '+ content as one text block': (m) => ({ role: m.role, content: [{ type: 'text', text: text(m) }] }),
  '+ message and block ids': (m) => ({
    id: m.id,
    role: m.role,
    content: [{ type: 'text', id: m.content[0]!.id, text: text(m) }],
  }),
  '+ name, createdAt, finishedAt': (m) => ({
    id: m.id,
    name: m.name,
    role: m.role,
    content: [{ type: 'text', id: m.content[0]!.id, text: text(m) }],
    createdAt: m.createdAt,
    finishedAt: m.finishedAt,
  }),
  '+ metadata, usage, finishedReason, structuredOutput, error (the Msg)': (m) => ({
    ...m,
    content: [{ ...m.content[0]! }],
    metadata: {},
    usage: m.usage && { ...m.usage },
  }),
};

const text = (m: Msg): string => (m.content[0] as TextBlock).text;

/** kB per session of each shape, plus the agent state itself, over `sessions` sessions of `turns` turns. */
export async function s4Shapes(sessions: number, turns: number): Promise<Record<string, number>> {
  let session = await agentkitSubject().s4();
  const out: Record<string, number> = {};
  const measure = async (name: string, keep: (state: AgentState) => unknown) => {
    for (let s = 0; s < 20; s++) keep((await session(-1 - s, turns)) as AgentState); // warm up
    await fullGc();
    const heap0 = process.memoryUsage().heapUsed;
    const held: unknown[] = [];
    for (let s = 0; s < sessions; s++) held.push(keep((await session(s, turns)) as AgentState));
    await fullGc();
    out[name] = (process.memoryUsage().heapUsed - heap0) / sessions / 1024;
    if (held.length !== sessions) throw new Error('lost sessions');
  };
  for (const [name, shape] of Object.entries(shapes)) await measure(name, (st) => st.context.map(shape));
  await measure('agent.state (what S4 holds)', (st) => st);
  // The same answers streamed word by word, as a provider sends them. V8 holds text grown by `+=` as a
  // rope (a cons cell per delta) until something flattens it; serialising the state (what every store's
  // save does) flattens its strings in place.
  session = streamedSession();
  await measure('agent.state, each answer streamed in one delta per word', (st) => st);
  await measure('… the same after one JSON.stringify (a store save)', (st) => {
    JSON.stringify(st);
    return st;
  });
  return out;
}

/** S4's sessions with every answer streamed as one text delta per word. */
function streamedSession(): (session: number, turns: number) => Promise<AgentState> {
  const cycle = new TextCycle();
  const model = new ZeroLatencyModel(() =>
    cycle
      .next()
      .split(/(?<= )/)
      .map((delta) => ({ type: 'text', delta })),
  );
  return async (session, turns) => {
    const agent = new Agent({ name: 'bench', systemPrompt: 'You are a calculator.', model });
    for (let t = 0; t < turns; t++) await agent.reply(questionText(session, t));
    return agent.state;
  };
}
