/**
 * A thrown value as text for a message: an `Error`'s message, anything else `String()`-ed. Never throws
 * itself — code may throw a null-prototype object, a proxy whose traps throw, or an error whose `message`
 * getter throws — and falls back to naming the value's type.
 */
export function thrownText(value: unknown): string {
  try {
    return value instanceof Error ? String(value.message) : String(value);
  } catch {
    return `(a thrown ${typeof value} that cannot be shown as text)`;
  }
}
