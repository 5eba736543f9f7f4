import { Agent, type AgentEvent, ModelError, userMsg } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import textStream from './__fixtures__/text-stream.json';
import { startGeminiServer, type GeminiTestServer } from './__fixtures__/gemini-test-server';
import { createGoogleModel, type GoogleModelOptions } from './google-model';

// Both key shapes the review found unredacted: Google's (`AIza…`) and OpenAI's (`sk-proj-…`).
const GOOGLE_KEY = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
const OPENAI_KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
/** The key the model is configured with: no recognisable shape, removed because it is the key in use. */
const CONFIGURED_KEY = 'custom-secret-token-42';

let server: GeminiTestServer;
beforeEach(async () => {
  server = await startGeminiServer();
});
afterEach(async () => {
  await server.close();
});

function gemini(options: Partial<GoogleModelOptions> = {}) {
  return createGoogleModel({
    model: 'gemini-2.5-flash',
    apiKey: CONFIGURED_KEY,
    httpOptions: { baseUrl: server.baseUrl },
    ...options,
  });
}

async function streamError(model = gemini()): Promise<ModelError> {
  const signal = new AbortController().signal;
  try {
    for await (const _ of model.stream({
      systemPrompt: '',
      messages: [userMsg('hi')],
      tools: [],
      toolChoice: 'auto',
      signal,
    }));
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('expected the stream to fail');
}

const expectNoSecret = (text: string) => {
  for (const secret of [GOOGLE_KEY, OPENAI_KEY, CONFIGURED_KEY, 'AIza', 'sk-proj', 'ya29.'])
    expect(text).not.toContain(secret);
};

describe('secrets in the texts model-google copies into errors', () => {
  it('a transport failure (not an ApiError) keeps its explanation but not the credentials, through an Agent into REPLY_END and the stored reply', async () => {
    // fetch refuses a URL with credentials and quotes it: a real non-ApiError whose text carries a key.
    const baseUrl = server.baseUrl.replace('://', `://proxy-user:${GOOGLE_KEY}@`);
    const agent = new Agent({ name: 'a', model: gemini({ httpOptions: { baseUrl } }), logger: silent });
    const events: AgentEvent[] = [];
    for await (const event of agent.replyStream('hi')) events.push(event as AgentEvent);
    const end = events.find((e) => e.type === 'REPLY_END');
    expect(end).toMatchObject({ finishedReason: 'error', error: { type: 'unknown' } });
    const message = (end as { error: { message: string } }).error.message;
    expect(message).toMatch(
      /^The Gemini request failed: .*URL that includes credentials: http:\/\/\[redacted\]@/,
    );
    expectNoSecret(message);
    expectNoSecret(JSON.stringify(events));
    expectNoSecret(JSON.stringify(agent.state)); // what a session store would persist
    expect(server.requests).toHaveLength(0);
  });

  it("an invalid request: Google's explanation is kept, its secrets are not", async () => {
    const explanation = `Request to https://generativelanguage.googleapis.com/v1beta/models/x?key=${GOOGLE_KEY}&alt=sse with Authorization: Bearer ya29.a0AfB_byC-xyz rejected; also saw ${OPENAI_KEY} and ${CONFIGURED_KEY}.`;
    server.reply({
      status: 400,
      body: { error: { code: 400, message: explanation, status: 'INVALID_ARGUMENT' } },
    });
    const error = await streamError();
    expect(error).toMatchObject({ errorType: 'invalid_request', status: 400 });
    expect(error.message).toContain(
      '/v1beta/models/x?key=[redacted]&alt=sse with Authorization: Bearer [redacted]',
    );
    expect(error.message).toContain('also saw [redacted] and [redacted].');
    expectNoSecret(error.message);
  });

  it('an invalid request reported inside the stream', async () => {
    server.reply({
      events: [
        textStream[0],
        {
          error: { code: 400, message: `bad key=${GOOGLE_KEY} or ${OPENAI_KEY}`, status: 'INVALID_ARGUMENT' },
        },
      ],
    });
    const error = await streamError();
    expect(error).toMatchObject({ errorType: 'invalid_request' });
    expect(error.message).toContain('bad key=[redacted] or [redacted]');
    expectNoSecret(error.message);
  });
});

const silent = { warn: () => {}, error: () => {} };
