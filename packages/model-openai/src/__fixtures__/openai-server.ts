import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted HTTP reply of {@link startOpenAIServer}. */
export type ServerReply =
  /** An SSE stream: each piece is written separately (with `delayMs` between), bytes as given. */
  | {
      stream: Array<string | Buffer>;
      delayMs?: number;
      /** After the pieces: `end` (default), `destroy` the socket, or `hang` until the client leaves. */
      ending?: 'end' | 'destroy' | 'hang';
    }
  /** No response at all (to test timeouts). */
  | { silent: true }
  /** A JSON error (or any JSON) response. */
  | { status: number; body: unknown; headers?: Record<string, string> };

/** A request the server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A local server that speaks the OpenAI wire format from a script of replies. */
export interface OpenAITestServer {
  baseURL: string;
  requests: ReceivedRequest[];
  /** Resolves when a client disconnects from a `hang` reply. */
  clientGone: Promise<void>;
  close(): Promise<void>;
}

/** SSE frames of chat chunks (`data: …`), ending with `data: [DONE]`. */
export function chatSse(chunks: unknown[], options: { done?: boolean } = {}): string[] {
  const frames = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  if (options.done !== false) frames.push('data: [DONE]\n\n');
  return frames;
}

/** SSE frames of Responses events (`event: <type>` + `data: …`). */
export function responsesSse(events: Array<{ type: string }>): string[] {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
}

/** Splits `text` into byte pieces at the given byte offsets (which may fall inside a UTF-8 character). */
export function splitBytes(text: string, offsets: number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const cuts = [0, ...offsets, bytes.length];
  const out: Buffer[] = [];
  for (let i = 0; i < cuts.length - 1; i++) out.push(bytes.subarray(cuts[i], cuts[i + 1]));
  return out;
}

/** Starts the server on 127.0.0.1 with a random port. Replies are used in order; the last one repeats. */
export async function startOpenAIServer(replies: ServerReply[]): Promise<OpenAITestServer> {
  const requests: ReceivedRequest[] = [];
  let resolveGone: () => void = () => {};
  const clientGone = new Promise<void>((resolve) => {
    resolveGone = resolve;
  });
  let n = 0;
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const piece of req) raw += piece;
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: raw ? JSON.parse(raw) : {},
    });
    const reply = replies[Math.min(n++, replies.length - 1)];
    if (!reply) {
      res.writeHead(500).end();
      return;
    }
    if ('silent' in reply) {
      res.on('close', () => resolveGone());
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'x-request-id': `req_${n}`,
        ...reply.headers,
      });
      res.end(JSON.stringify(reply.body));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': `req_${n}`,
    });
    res.flushHeaders();
    let gone = false;
    res.on('close', () => {
      gone = true;
      resolveGone();
    });
    for (const piece of reply.stream) {
      if (gone) return;
      res.write(piece);
      await new Promise((r) => setTimeout(r, reply.delayMs ?? 2));
    }
    if (reply.ending === 'destroy') res.socket?.destroy();
    else if (reply.ending !== 'hang') res.end();
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    clientGone,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
