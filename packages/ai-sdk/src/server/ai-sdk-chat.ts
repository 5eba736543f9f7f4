import { InvalidInputError, isInputEvent, type Msg } from '@agentkit/core';
import {
  followRun,
  latestReplyStart,
  type ServerExtension,
  TooManyRepliesError,
  toSseMessages,
} from '@agentkit/server';
import { safeValidateUIMessages, UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { z } from 'zod';
import { replyInputFromUIMessages } from '../reply-input-from-ui-messages';
import { UIMessageMapper, type UIMessageMapperOptions } from '../ui-message-mapper';

/** Options of {@link aiSdkChat}. */
export interface AiSdkChatOptions extends Pick<UIMessageMapperOptions, 'reasoning'> {}

/** The body `DefaultChatTransport` posts: the chat id (= the session id) and the chat's messages. */
export const ChatRequestBody = z
  .object({
    id: z
      .string()
      .regex(
        /^(?!\.\.?$)[A-Za-z0-9_.~-]{1,128}$/,
        "must be 1 to 128 characters from A-Z a-z 0-9 _ . ~ -, and not '.' or '..'",
      ),
    messages: z.array(z.record(z.string(), z.unknown())).min(1),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().optional(),
  })
  .loose();

const PATH = '/agents/:agentId/chat';

/**
 * A server extension that speaks the AI SDK's chat protocol, so `useChat` (or any `AbstractChat`) with
 * `DefaultChatTransport({ api: '<server>/agents/<agentId>/chat' })` talks to an agent: the chat id is the
 * session id (of the authenticated user).
 *
 * - `POST /agents/:agentId/chat` with `{ id, messages }`: reads the last message (a user message, tool
 *   approvals, or client-side tool results; see `replyInputFromUIMessages`), runs the reply through the
 *   server's runner and streams it as the UI message stream.
 * - `GET /agents/:agentId/chat/:sessionId/stream`: the transport's resume route (`useChat({ resume: true })`):
 *   while a reply runs, its stream from the start, live to its end; `204` when none runs.
 *
 * A client that disconnects (`stop()`) never stops the reply; interrupt it with `POST
 * /agents/:agentId/sessions/:sessionId/interrupt`.
 * @example
 * const app = createAgentServer({ agents, store, authenticate, extensions: [aiSdkChat()] });
 */
export function aiSdkChat(options: AiSdkChatOptions = {}): ServerExtension {
  return (app, server) => {
    const { store } = server.options;
    const maxRunning = server.options.limits?.maxRunningRepliesPerUser ?? 4;

    server.routes.push({
      method: 'post',
      path: PATH,
      summary:
        "AI SDK chat (useChat's DefaultChatTransport): `{ id, messages }` with `id` the session id; the last message is the input (a user message, tool approvals or client-side tool results). Streams the reply as the AI SDK UI message stream",
      body: ChatRequestBody,
      sse: true,
      responses: {
        200: 'The UI message stream (text/event-stream, x-vercel-ai-ui-message-stream: v1)',
        400: 'Bad body or messages, or a message that asks for nothing',
        401: 'No credentials',
        404: 'No such agent',
        409: 'A reply of the session is running, or it is paused and the message does not answer it',
        413: 'Body too large',
        429: 'Too many running replies of this user',
        503: 'Shutting down',
      },
    });
    app.post(PATH, async (c) => {
      const agent = server.session(c);
      const body = await server.body(c, ChatRequestBody);
      const session = { ...agent, sessionId: body.id };
      if (body.trigger === 'regenerate-message')
        throw new InvalidInputError(
          'Regenerating a message is not supported: the session keeps its history. Send a new message instead.',
        );
      const validated = await safeValidateUIMessages({ messages: body.messages });
      if (!validated.success) throw new InvalidInputError(`Invalid messages: ${validated.error.message}`);
      if (server.runner.runningFor(session.userId) >= maxRunning) throw new TooManyRepliesError(maxRunning);
      const record = await store.getSession(session.userId, session.agentId, session.sessionId);
      const input = replyInputFromUIMessages(validated.data, record?.state);
      const run = await server.runner.start({ session, input });
      const resumed = isInputEvent(input)
        ? findReply(record?.state.context, record?.state.reply?.id)
        : undefined;
      const mapper = new UIMessageMapper({ ...options, usage: resumed?.usage ?? null });
      for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) c.header(name, value);
      return followRun(c, server, session, run, ({ id, event }) => {
        if (event.type === 'RUN_START') return [];
        if (event.type === 'STREAM_GAP') return toSseMessages(id, [streamGapError]);
        if (event.type === 'RUN_END')
          return event.runId === run.runId
            ? [...toSseMessages(id, mapper.finish(event)), { data: '[DONE]' }]
            : [];
        return toSseMessages(id, mapper.push(event));
      });
    });

    server.routes.push({
      method: 'get',
      path: `${PATH}/:sessionId/stream`,
      summary:
        "AI SDK chat resume (DefaultChatTransport.reconnectToStream): the running reply's UI message stream from its start, live to its end",
      sse: true,
      responses: {
        200: 'The UI message stream (text/event-stream)',
        204: 'No reply runs',
        401: 'No credentials',
        404: 'No such agent',
      },
    });
    app.get(`${PATH}/:sessionId/stream`, async (c) => {
      const session = server.session(c);
      const { userId, agentId, sessionId } = session;
      const [record, lease] = await Promise.all([
        store.getSession(userId, agentId, sessionId),
        store.getLease(userId, agentId, sessionId),
      ]);
      if (!record || !lease) return c.body(null, 204);
      const { after, prelude } = await latestReplyStart(server.log, session, record.state);
      const mapper = new UIMessageMapper(options);
      for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) c.header(name, value);
      return server.follow(c, {
        session,
        after,
        isLast: () => false,
        idle: async () => (await store.getLease(userId, agentId, sessionId)) === null,
        ...(prelude ? { prelude } : {}),
        render: ({ id, event }) => {
          if (event.type === 'RUN_START') return [];
          if (event.type === 'STREAM_GAP') return toSseMessages(id, [streamGapError]);
          return toSseMessages(id, event.type === 'RUN_END' ? mapper.finish(event) : mapper.push(event));
        },
      });
    });
  };
}

function findReply(context: readonly Msg[] | undefined, id: string | undefined): Msg | undefined {
  return id === undefined ? undefined : context?.findLast((m) => m.id === id);
}

/** What a client that fell behind the server's event log sees (the stream then ends): reload the chat. */
const streamGapError = {
  type: 'error',
  errorText: 'The chat fell behind what the server keeps of its events: reload it.',
} as const;
