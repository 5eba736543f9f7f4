// Timestamps are minted per lifecycle event and message, not per delta; formatting is cached per
// millisecond because many are minted in the same one.
let lastMs = 0;
let lastIso = '';

/** The current time as an ISO 8601 string. */
export function now(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
