import {
  type AgentInput,
  type AgentState,
  awaitingToolCalls,
  type ConfirmResult,
  createMsg,
  type DataBlock,
  type ExternalExecutionResultEvent,
  InvalidInputError,
  isUnfinished,
  type Msg,
  newId,
  type TextBlock,
} from '@agentkit/core';
import type { ContentPart, Message, RunAgentInput } from '@ag-ui/core';

/**
 * What an AG-UI run asks of the agent, from its `RunAgentInput` and the session's state (`null` for a new
 * thread). The session holds the history, so only what is new is read:
 * - `resume` answers the open interrupts (tool approvals): a `USER_CONFIRM_RESULT` (`payload.approved`,
 *   with `payload.editedArgs` replacing the arguments; `cancelled` denies). Every open interrupt must be
 *   answered, and none other;
 * - tool messages answering calls the reply submitted for frontend execution: an
 *   `EXTERNAL_EXECUTION_RESULT` (`error` set: an error result);
 * - the user messages at the end of `messages`: new user messages (text, and media as data blocks);
 * - nothing new while a reply is unfinished (its process stopped): `null`, which continues it.
 *
 * Throws `InvalidInputError` for input that answers nothing or leaves interrupts open.
 */
export function replyInputFromRunAgentInput(
  input: Pick<RunAgentInput, 'messages'> & Partial<Pick<RunAgentInput, 'resume'>>,
  state: AgentState | null | undefined,
): AgentInput {
  const awaiting = state ? awaitingToolCalls(state) : [];
  const asking = awaiting.filter((c) => c.state === 'asking');
  if (input.resume?.length) {
    const answers = new Map(input.resume.map((r) => [r.interruptId, r]));
    const unknown = [...answers.keys()].filter((id) => !asking.some((c) => c.id === id));
    if (unknown.length > 0)
      throw new InvalidInputError(
        `No open interrupt has the id ${unknown.map((id) => `'${id}'`).join(', ')}.`,
      );
    const missing = asking.filter((c) => !answers.has(c.id));
    if (missing.length > 0)
      throw new InvalidInputError(
        `The resume must answer every open interrupt; missing ${missing.map((c) => `'${c.id}'`).join(', ')}.`,
      );
    const confirmResults = asking.map((call): ConfirmResult => {
      const answer = answers.get(call.id)!;
      const toolCall = { id: call.id, name: call.name, input: call.input };
      if (answer.status === 'cancelled') return { confirmed: false, toolCall };
      const payload = answer.payload as { approved?: unknown; editedArgs?: unknown } | undefined;
      if (typeof payload?.approved !== 'boolean')
        throw new InvalidInputError(
          `The answer to interrupt '${call.id}' needs a payload { approved: boolean }.`,
        );
      const edited = payload.editedArgs;
      if (edited !== undefined && (typeof edited !== 'object' || edited === null || Array.isArray(edited)))
        throw new InvalidInputError(`The editedArgs of interrupt '${call.id}' must be an object.`);
      return {
        confirmed: payload.approved,
        toolCall: payload.approved && edited ? { ...toolCall, input: JSON.stringify(edited) } : toolCall,
      };
    });
    return { type: 'USER_CONFIRM_RESULT', confirmResults };
  }
  if (asking.length > 0)
    throw new InvalidInputError(
      `The thread has open interrupts (${asking.map((c) => `'${c.id}'`).join(', ')}): answer them with resume.`,
    );
  const submitted = new Set(awaiting.filter((c) => c.state === 'submitted').map((c) => c.id));
  if (submitted.size > 0) {
    const executionResults: ExternalExecutionResultEvent['executionResults'] = [];
    for (const m of input.messages)
      if (m.role === 'tool' && submitted.has(m.toolCallId))
        executionResults.push({
          id: m.toolCallId,
          output: typeof m.content === 'string' ? m.content : blocks(m.content),
          state: m.error ? 'error' : 'success',
        });
    if (executionResults.length === 0)
      throw new InvalidInputError(
        `The reply waits for the results of tool calls ${[...submitted].map((id) => `'${id}'`).join(', ')}: send them as tool messages.`,
      );
    return { type: 'EXTERNAL_EXECUTION_RESULT', executionResults };
  }
  const fresh: Msg[] = [];
  for (let i = input.messages.length - 1; i >= 0 && input.messages[i]!.role === 'user'; i--)
    fresh.unshift(userMessage(input.messages[i] as Extract<Message, { role: 'user' }>));
  if (fresh.length > 0) return fresh;
  const reply = state?.reply ? state.context.findLast((m) => m.id === state.reply?.id) : undefined;
  if (isUnfinished(reply)) return null;
  throw new InvalidInputError('There is nothing new to reply to: end the messages with a user message.');
}

function userMessage(message: Extract<Message, { role: 'user' }>): Msg {
  const content = typeof message.content === 'string' ? message.content : blocks(message.content);
  if (content.length === 0) throw new InvalidInputError(`The user message '${message.id}' is empty.`);
  return createMsg({ role: 'user', name: message.name ?? 'user', content });
}

function blocks(parts: readonly ContentPart[]): Array<TextBlock | DataBlock> {
  return parts.map((part): TextBlock | DataBlock => {
    if (part.type === 'text') return { type: 'text', id: newId(), text: part.text };
    const { source } = part;
    const filename = (part.metadata as { filename?: unknown } | undefined)?.filename;
    const name = typeof filename === 'string' ? { name: filename } : {};
    if (source.type === 'data')
      return {
        type: 'data',
        id: newId(),
        source: { type: 'base64', data: source.value, mediaType: source.mimeType },
        ...name,
      };
    if (source.type === 'url')
      return {
        type: 'data',
        id: newId(),
        source: { type: 'url', url: source.value, mediaType: source.mimeType ?? 'application/octet-stream' },
        ...name,
      };
    throw new InvalidInputError(
      'Provider file references (source type "file") are not supported; send data or a URL.',
    );
  });
}
