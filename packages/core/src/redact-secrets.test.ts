import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets';

const GOOGLE_KEY = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
const OPENAI_KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const ANTHROPIC_KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEf';
const JWT =
  'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0.c2lnbmF0dXJlLXZhbHVl_-x';

describe('redactSecrets', () => {
  it.each([
    ['a Google API key', `API key not valid: ${GOOGLE_KEY}.`, 'API key not valid: [redacted].'],
    [
      'a Google key in a query',
      `GET https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key=${GOOGLE_KEY} failed`,
      'GET https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key=[redacted] failed',
    ],
    [
      'an OpenAI project key',
      `Incorrect API key provided: ${OPENAI_KEY}.`,
      'Incorrect API key provided: [redacted].',
    ],
    [
      'a masked OpenAI key',
      'Incorrect API key provided: sk-proj-abc123****xyz.',
      'Incorrect API key provided: [redacted].',
    ],
    ['an Anthropic key', `x-api-key: ${ANTHROPIC_KEY}`, 'x-api-key: [redacted]'],
    ['a bearer token', 'Authorization: Bearer abc.def~ghi', 'Authorization: Bearer [redacted]'],
    ['a Google OAuth token', 'Authorization: Bearer ya29.a0AfB_byC-xyz', 'Authorization: Bearer [redacted]'],
    ['a bare Google OAuth token', 'token ya29.a0AfB_byC-xyz expired', 'token [redacted] expired'],
    ['basic auth', 'Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [redacted]'],
    ['a JWT', `id_token ${JWT} rejected`, 'id_token [redacted] rejected'],
    [
      'query parameters',
      'https://h/p?api_key=abc123&token=t0k&access_token=xyz&x-goog-api-key=q&client_secret=s&alt=sse#f',
      'https://h/p?api_key=[redacted]&token=[redacted]&access_token=[redacted]&x-goog-api-key=[redacted]&client_secret=[redacted]&alt=sse#f',
    ],
    [
      'credentials in a URL',
      'Request cannot be constructed from a URL that includes credentials: http://user:hunter2@127.0.0.1:8080/v1',
      'Request cannot be constructed from a URL that includes credentials: http://[redacted]@127.0.0.1:8080/v1',
    ],
  ])('removes %s and keeps the rest', (_, text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('removes every occurrence of the known secrets, whatever their shape', () => {
    expect(redactSecrets('bad key mysecretvalue, again mysecretvalue', ['mysecretvalue'])).toBe(
      'bad key [redacted], again [redacted]',
    );
    expect(redactSecrets('abc', [undefined, null, 'ab'])).toBe('abc'); // too short to be a secret
  });

  it('leaves ordinary text alone', () => {
    const text =
      'The model provider rejected the request: max_tokens=5 is too small; keyword=foo, monkey=banana, task-manager, disk-space, https://example.com/a?b=c';
    expect(redactSecrets(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = redactSecrets(`?key=${GOOGLE_KEY} Bearer ${JWT} http://u:p@h ${OPENAI_KEY}`);
    expect(redactSecrets(once)).toBe(once);
    expect(once).not.toMatch(/AIza|eyJ|sk-|u:p/);
  });

  it('stays linear on long hostile text (no catastrophic backtracking)', () => {
    const started = performance.now();
    for (const text of [
      'a-'.repeat(200_000),
      'a'.repeat(400_000),
      'a_'.repeat(200_000) + '=',
      'a://'.repeat(100_000),
      'eyJa.'.repeat(80_000),
    ])
      redactSecrets(text);
    expect(performance.now() - started).toBeLessThan(5_000); // well under 100 ms unloaded
  });
});
