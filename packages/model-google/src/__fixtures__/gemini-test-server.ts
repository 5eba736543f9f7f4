import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the fake Gemini server. */
export type ScriptedReply =
  /** An SSE stream of response objects (a string is sent as is); `dropAfter` sends that many events and half the next, then destroys the socket; `truncateAfter` does the same but ends the response cleanly; `hangAfter` stops writing and waits for the client to go away. */
  | { events: unknown[]; delayMs?: number; dropAfter?: number; truncateAfter?: number; hangAfter?: number }
  /** A JSON error (or any JSON) with an HTTP status. */
  | { status: number; body: unknown; headers?: Record<string, string> };

/** A request the fake server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
}

/** A local HTTP server speaking the Gemini REST wire format (`:streamGenerateContent?alt=sse`). */
export interface GeminiTestServer {
  baseUrl: string;
  requests: ReceivedRequest[];
  /** Queues replies, answered in order. */
  reply(...replies: ScriptedReply[]): void;
  /** Requests to `:countTokens`, kept apart from `requests` (a model counts in the background). */
  countRequests: ReceivedRequest[];
  /** Queues answers of `:countTokens`, in order; without one left it answers HTTP 500. */
  countReply(...replies: Array<{ status: number; body: unknown }>): void;
  /** Resolves when the client closed a `hangAfter` stream. */
  clientClosed: Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startGeminiServer(): Promise<GeminiTestServer> {
  const queue: ScriptedReply[] = [];
  const requests: ReceivedRequest[] = [];
  const countQueue: Array<{ status: number; body: unknown }> = [];
  const countRequests: ReceivedRequest[] = [];
  let markClosed!: () => void;
  const clientClosed = new Promise<void>((resolve) => (markClosed = resolve));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const received = {
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: raw ? JSON.parse(raw) : undefined,
    };
    if (url.pathname.endsWith(':countTokens')) {
      countRequests.push(received);
      const answer = countQueue.shift() ?? {
        status: 500,
        body: { error: { code: 500, message: 'test server: no count answer left', status: 'INTERNAL' } },
      };
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify(answer.body));
      return;
    }
    requests.push(received);
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(
        JSON.stringify({
          error: { code: 500, message: 'test server: no scripted reply left', status: 'INTERNAL' },
        }),
      );
      return;
    }
    if ('status' in next) {
      res.writeHead(next.status, { 'content-type': 'application/json; charset=UTF-8', ...next.headers });
      res.end(JSON.stringify(next.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    for (const [i, event] of next.events.entries()) {
      if (next.dropAfter === i) {
        // Half an event, then the connection dies.
        const line = `data: ${JSON.stringify(event)}`;
        res.write(line.slice(0, line.length >> 1));
        await sleep(20);
        res.socket?.destroy();
        return;
      }
      if (next.truncateAfter === i) {
        // Half an event, then a clean end of the response.
        const line = `data: ${JSON.stringify(event)}`;
        res.end(line.slice(0, line.length >> 1));
        return;
      }
      if (next.hangAfter === i) {
        res.on('close', () => markClosed());
        return;
      }
      if (next.delayMs) await sleep(next.delayMs);
      res.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\r\n\r\n`);
    }
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      res.destroy(error);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => queue.push(...replies),
    countRequests,
    countReply: (...replies) => countQueue.push(...replies),
    clientClosed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
