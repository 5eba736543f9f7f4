import { ConfigError } from '@agentkit/core';

const LEFT_UNESCAPED_BY_URI = /[!'()*~]/g;

/**
 * Escapes an id for use inside a Redis key: every byte of its UTF-8 form outside `[A-Za-z0-9_.-]` becomes
 * `%XX`. The result never contains `:`, `{`, `}`, `*` or `%` other than as an escape, so an id can neither
 * reach another user's or agent's keys nor change the hash tag; the mapping is one-to-one.
 */
export function escapeKeyPart(id: string): string {
  return encodeURIComponent(id).replace(
    LEFT_UNESCAPED_BY_URI,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** Reverses {@link escapeKeyPart}. */
export function unescapeKeyPart(escaped: string): string {
  return decodeURIComponent(escaped);
}

/** Throws `ConfigError` unless the prefix keeps the hash tag of the keys intact. */
export function checkKeyPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || /[{}]/.test(prefix))
    throw new ConfigError(
      `keyPrefix must be a string without '{' or '}' (they would change the Redis Cluster hash tag).`,
      { field: 'keyPrefix' },
    );
}
