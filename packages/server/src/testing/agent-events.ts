import type { AgentEvent, InputEvent } from '@agentkit/core';
import type { LogEvent } from '../event-log';

/**
 * The events of a stream's messages without the server's markers (`RUN_START`, `RUN_END`, `STREAM_GAP`): the agent's
 * events and the resume events, which `replayEvents` of `@agentkit/core` reduces to the stored message.
 * @example
 * const { messages } = await readSse(response);
 * expect(replayEvents(agentEvents(messages))).toEqual(record.state.context.at(-1));
 */
export function agentEvents(messages: ReadonlyArray<{ event: LogEvent }>): Array<AgentEvent | InputEvent> {
  const out: Array<AgentEvent | InputEvent> = [];
  for (const { event } of messages)
    if (event.type !== 'RUN_START' && event.type !== 'RUN_END' && event.type !== 'STREAM_GAP')
      out.push(event);
  return out;
}
