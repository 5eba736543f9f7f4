/** What a removed secret is replaced by. */
const REDACTED = '[redacted]';

/**
 * Secret shapes, each with its replacement. Order matters: credentials in URLs and JWTs go first, so the
 * patterns after them never see half of one. Patterns with a variable-length head start only where a
 * word does (a lookbehind), so a long run of letters is scanned once, not once per position.
 */
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // `https://user:password@host` (and `user@host`): everything between `//` and `@`.
  [/(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi, `$1${REDACTED}@`],
  // JWTs (OAuth access and ID tokens): base64url header and payload, both JSON objects (`eyJ` = `{"`).
  [/\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  // OpenAI (`sk-…`, `sk-proj-…`, `sk-svcacct-…`), Anthropic (`sk-ant-…`) and other `sk-`/`rk-`/`pk-` keys.
  [/\b(?:sk|rk|pk)-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  // Google API keys (`AIza` + 35 characters) and Google OAuth access tokens (`ya29.…`).
  [/\bAIza[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/\bya29\.[A-Za-z0-9_.-]+/g, REDACTED],
  // `Authorization: Bearer …` / `Basic …`.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=*-]+/gi, `$1 ${REDACTED}`],
  // Query or form parameters: `key=`, `api_key=`, `apikey=`, `x-goog-api-key=`, `token=`, `access_token=`,
  // `client_secret=`, `password=`, `sig=`…
  [
    /(?<![A-Za-z0-9_-])((?:[A-Za-z0-9]+[_-])*(?:key|apikey|token|secret|password|passwd|sig|signature))=[^\s&#"'<>]+/gi,
    `$1=${REDACTED}`,
  ],
];

/**
 * Removes secrets from text that is about to leave the adapter (an error message, an event, stored
 * state): every exact occurrence of the `known` secrets (the API key in use; values shorter than 4
 * characters are ignored), and anything shaped like one — API keys of OpenAI (`sk-…`, `sk-proj-…`),
 * Anthropic (`sk-ant-…`) and Google (`AIza…`), Google OAuth tokens (`ya29.…`), JWTs, `Bearer`/`Basic`
 * credentials, `key=`/`api_key=`/`token=`/`secret=`… parameters and `user:password@` in URLs. Each becomes
 * `[redacted]`; the rest of the text is kept, so the message still says what went wrong.
 * @example
 * redactSecrets('GET https://x.googleapis.com/v1/m?key=AIzaSy…&alt=sse failed') // '…?key=[redacted]&alt=sse failed'
 */
export function redactSecrets(text: string, known: Iterable<string | null | undefined> = []): string {
  let out = text;
  for (const secret of known)
    if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
