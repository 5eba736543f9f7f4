import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, Script } from 'node:vm';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Env, TriageRequest } from './worker';

const here = dirname(fileURLToPath(import.meta.url));

/** One scripted answer of the fake OpenAI endpoint: text, or tool calls as `[name, arguments]`. */
type Answer = { text: string } | { calls: Array<[string, unknown]> };

/** An SSE body in the Chat Completions streaming format, as the OpenAI API sends it. */
function sse(answer: Answer): string {
  const chunk = (delta: unknown, finish: string | null) => ({
    id: 'chatcmpl-edge',
    object: 'chat.completion.chunk',
    created: 1_753_800_000,
    model: 'gpt-4.1-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events =
    'text' in answer
      ? [chunk({ role: 'assistant', content: answer.text }, null), chunk({}, 'stop')]
      : [
          ...answer.calls.map(([name, args], index) =>
            chunk(
              {
                role: 'assistant',
                tool_calls: [
                  {
                    index,
                    id: `call_${index}_${name}`,
                    type: 'function',
                    function: { name, arguments: JSON.stringify(args) },
                  },
                ],
              },
              null,
            ),
          ),
          chunk({}, 'tool_calls'),
        ];
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}

interface Isolate {
  fetch(request: Request, env: Env): Promise<Response>;
  evalWorks(): boolean;
  requests: unknown[];
  answers: Answer[];
}

/**
 * The worker bundled by esbuild as a Worker build would be (browser platform, `worker` conditions, the
 * built packages), then run in a V8 context where code generation from strings is disabled, as in
 * Cloudflare Workers: `eval` and `new Function` throw there. Its global `fetch` is a fake OpenAI endpoint.
 */
async function isolate(): Promise<Isolate> {
  const bundle = await build({
    entryPoints: [join(here, 'worker.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'worker',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const requests: unknown[] = [];
  const answers: Answer[] = [];
  const fakeFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push({ url: request.url, body: await request.json() });
    const answer = answers.shift();
    if (!answer) return Response.json({ error: { message: 'no answer left' } }, { status: 500 });
    return new Response(sse(answer), { headers: { 'content-type': 'text/event-stream' } });
  };
  // What a Worker runtime offers: web APIs, no `process`, no Node modules.
  const globals = {
    fetch: fakeFetch,
    Request,
    Response,
    Headers,
    FormData,
    Blob,
    File,
    URL,
    URLSearchParams,
    AbortController,
    AbortSignal,
    DOMException,
    Event,
    EventTarget,
    ReadableStream,
    WritableStream,
    TransformStream,
    TextEncoder,
    TextDecoder,
    TextDecoderStream,
    crypto,
    structuredClone,
    atob,
    btoa,
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    console,
    navigator: { userAgent: 'Cloudflare-Workers' },
  };
  const context = createContext(globals, { codeGeneration: { strings: false, wasm: false } });
  new Script(`${bundle.outputFiles[0]!.text}\nglobalThis.handler = worker.default;`).runInContext(context);
  const handler = (context as { handler: { fetch: Isolate['fetch'] } }).handler;
  return {
    fetch: (request, env) => handler.fetch(request, env),
    evalWorks: () =>
      new Script(
        '(() => { try { new Function("return 1"); return true; } catch { return false; } })()',
      ).runInContext(context) as boolean,
    requests,
    answers,
  };
}

const env: Env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'https://api.openai.test/v1' };
const post = (body: TriageRequest) =>
  new Request('https://worker.test/triage', { method: 'POST', body: JSON.stringify(body) });

describe('agentkit bundled for a Worker, with code generation disabled', () => {
  let worker: Isolate;
  beforeAll(async () => {
    worker = await isolate();
  }, 60_000);

  it('runs in a context where new Function is refused', () => {
    expect(worker.evalWorks()).toBe(false);
  });

  it('a structured reply pauses for approval, then resumes from the state alone and is validated there', async () => {
    worker.answers.push({ calls: [['page_oncall', { message: 'The database is down' }]] });
    const first = (await (await worker.fetch(post({ incident: 'The database is down.' }), env)).json()) as {
      paused: boolean;
      state: string;
    };
    expect(first.paused).toBe(true);
    // The next request carries only the state: the schema comes back from it as JSON Schema, checked
    // without code generation (the tool's input check, then the JSON Schema validator, which fills the
    // declared default of `tags`). An invalid output is sent back to the model, which corrects it.
    worker.answers.push(
      { calls: [['GenerateStructuredOutput', { severity: 'urgent', summary: 'Database down' }]] },
      {
        calls: [['GenerateStructuredOutput', { severity: 'high', summary: 'Database down, on-call paged' }]],
      },
    );
    const second = await (await worker.fetch(post({ state: first.state, approve: true }), env)).json();
    expect(second).toEqual({
      finishedReason: 'completed',
      structuredOutput: { severity: 'high', summary: 'Database down, on-call paged', tags: [] },
    });
    expect(worker.requests).toHaveLength(3);
    const retry = JSON.stringify(worker.requests[2]);
    expect(retry).toContain('paged: The database is down');
    expect(retry).toContain('$.severity: must be one of \\"low\\", \\"high\\"');
  });

  it('a reply that finishes at once is validated by the schema object (zod without its JIT)', async () => {
    worker.answers.push({
      calls: [['GenerateStructuredOutput', { severity: 'low', summary: 'A typo on the status page' }]],
    });
    const result = await (await worker.fetch(post({ incident: 'Typo on the status page.' }), env)).json();
    expect(result).toEqual({
      finishedReason: 'completed',
      structuredOutput: { severity: 'low', summary: 'A typo on the status page', tags: [] },
    });
  });
});
