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
  newId,
  type TextBlock,
} from '@agentkit/core';
import { isToolUIPart, type UIMessage } from 'ai';

/**
 * What a chat request asks of the agent, from the UI messages `useChat` sent (only the last one is read:
 * the session holds the history) and the session's state (`null` for a new session):
 * - a user message: its text and file parts as a new user message;
 * - the assistant message with tool approvals answered (`addToolApprovalResponse`): a
 *   `USER_CONFIRM_RESULT` for the calls the paused reply waits on (name and input as the reply holds them);
 * - the assistant message with client-side tool results (`addToolOutput`): an `EXTERNAL_EXECUTION_RESULT`
 *   for the calls submitted for external execution;
 * - the assistant message of a reply left unfinished (its process stopped): `null`, which continues it.
 *
 * Throws `InvalidInputError` when the message asks for nothing the state can do.
 * @example
 * const input = replyInputFromUIMessages(body.messages, agent.state);
 * return toUIMessageStreamResponse(agent.replyStream(input));
 */
export function replyInputFromUIMessages(
  messages: readonly UIMessage[],
  state: AgentState | null | undefined,
): AgentInput {
  const last = messages.at(-1);
  if (!last) throw new InvalidInputError('The chat request has no messages.');
  if (last.role === 'user') return userMessage(last);
  if (last.role !== 'assistant')
    throw new InvalidInputError(
      `The last message must be the user's or the assistant's, not '${last.role}'.`,
    );
  const awaiting = state ? awaitingToolCalls(state) : [];
  const confirmResults: ConfirmResult[] = [];
  const executionResults: ExternalExecutionResultEvent['executionResults'] = [];
  for (const part of last.parts) {
    if (!isToolUIPart(part)) continue;
    const call = awaiting.find((c) => c.id === part.toolCallId);
    if (!call) continue;
    if (call.state === 'asking' && part.state === 'approval-responded')
      confirmResults.push({
        confirmed: part.approval.approved,
        toolCall: { id: call.id, name: call.name, input: call.input },
      });
    else if (call.state === 'submitted' && part.state === 'output-available')
      executionResults.push({
        id: call.id,
        output: typeof part.output === 'string' ? part.output : JSON.stringify(part.output ?? null),
        state: 'success',
      });
    else if (call.state === 'submitted' && part.state === 'output-error')
      executionResults.push({ id: call.id, output: part.errorText, state: 'error' });
  }
  if (confirmResults.length > 0) return { type: 'USER_CONFIRM_RESULT', confirmResults };
  if (executionResults.length > 0) return { type: 'EXTERNAL_EXECUTION_RESULT', executionResults };
  if (awaiting.length > 0)
    throw new InvalidInputError(
      `The reply waits on tool calls ${awaiting.map((c) => `'${c.id}'`).join(', ')}; the message answers none of them.`,
    );
  const reply = state?.reply ? state.context.findLast((m) => m.id === state.reply?.id) : undefined;
  if (isUnfinished(reply)) return null;
  throw new InvalidInputError(
    'There is nothing to continue: the last message is the assistant’s and its reply has ended. Send a user message.',
  );
}

function userMessage(message: UIMessage) {
  const content: Array<TextBlock | DataBlock> = [];
  for (const part of message.parts) {
    if (part.type === 'text') content.push({ type: 'text', id: newId(), text: part.text });
    else if (part.type === 'file') {
      const inline = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s.exec(part.url);
      content.push({
        type: 'data',
        id: newId(),
        source: inline
          ? {
              type: 'base64',
              data: inline[2]!,
              mediaType: part.mediaType || inline[1] || 'application/octet-stream',
            }
          : { type: 'url', url: part.url, mediaType: part.mediaType },
        ...(part.filename !== undefined ? { name: part.filename } : {}),
      });
    }
  }
  if (content.length === 0) throw new InvalidInputError('The user message has no text or file parts.');
  return createMsg({ role: 'user', name: 'user', content });
}
