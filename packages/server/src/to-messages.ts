import { createMsg, type Msg } from '@agentkit/core';

/** Messages from a reply body's `input` (strings stay strings; the agent makes them user messages). */
export function toMessages(
  input: Array<{
    role: 'user' | 'assistant';
    name?: string | undefined;
    content: unknown;
    metadata?: unknown;
  }>,
): Msg[] {
  return input.map((m) =>
    createMsg({
      role: m.role,
      ...(m.name !== undefined ? { name: m.name } : {}),
      content:
        typeof m.content === 'string'
          ? m.content
          : (m.content as Array<Record<string, unknown>>).map((part) =>
              part.type === 'text'
                ? { type: 'text', id: crypto.randomUUID(), text: part.text as string }
                : {
                    type: 'data',
                    id: crypto.randomUUID(),
                    source: part.source as never,
                    ...(part.name !== undefined ? { name: part.name as string | null } : {}),
                  },
            ),
      ...(m.metadata ? { metadata: m.metadata as never } : {}),
    }),
  );
}
