import type { ActiveReply } from './agent-core';
import { newId } from './ids';
import type { ToolChunk, ToolResult } from './tool';

/** Emits output parts as result deltas; applying them builds the result block in the message. */
export function emitOutput(
  reply: ActiveReply,
  callId: string,
  parts: ToolResult['output'] | ToolChunk[],
): void {
  const replyId = reply.msg.id;
  const list = typeof parts === 'string' ? [parts] : parts;
  for (const part of list) {
    if (typeof part === 'string' || part.type === 'text') {
      const delta = typeof part === 'string' ? part : part.text;
      if (delta !== '') reply.record({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: callId, delta });
    } else if (part.type === 'data') {
      reply.record({
        type: 'TOOL_RESULT_DATA_DELTA',
        replyId,
        toolCallId: callId,
        blockId: 'id' in part && part.id ? part.id : newId(),
        mediaType: part.source.mediaType,
        ...(part.source.type === 'url' ? { url: part.source.url } : { data: part.source.data }),
        ...(part.name !== undefined ? { name: part.name } : {}),
      });
    }
  }
}
