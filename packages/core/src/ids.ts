/**
 * Returns a new random id (a UUID v4 without dashes). Ids are minted for messages, blocks and replies,
 * never per streamed delta.
 */
export function newId(): string {
  return crypto.randomUUID().replaceAll('-', '');
}
