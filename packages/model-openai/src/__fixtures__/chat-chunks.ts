/**
 * Builders of Chat Completions stream chunks shaped like recorded `gpt-4o-mini` responses
 * (see chat-text.json): a role chunk, content or tool-call deltas, a finish chunk, a usage chunk.
 */
const base = {
  id: 'chatcmpl-Bz1qR8sT2uV4wX6yZ8aB0cD2eF4gH',
  object: 'chat.completion.chunk',
  created: 1753800300,
  model: 'gpt-4o-mini-2024-07-18',
  service_tier: 'default',
  system_fingerprint: 'fp_560af6e559',
};

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null };
}

function usage(prompt: number, completion: number) {
  return {
    ...base,
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
  };
}

/** A streamed text answer, one chunk per word. */
export function textAnswer(text: string, tokens: [number, number] = [50, 10]): unknown[] {
  const words = text.split(/(?<=\s)/);
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...words.map((w) => chunk({ content: w })),
    chunk({}, 'stop'),
    usage(...tokens),
  ];
}

/** Streamed tool calls; each call's arguments are sent in pieces of `pieceSize` characters. */
export function toolCallAnswer(
  calls: Array<{ id: string; name: string; arguments: string }>,
  pieceSize = 4,
  tokens: [number, number] = [80, 20],
): unknown[] {
  const out: unknown[] = [chunk({ role: 'assistant', content: null, refusal: null })];
  calls.forEach((call, index) => {
    out.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (let i = 0; i < call.arguments.length; i += pieceSize)
      out.push(
        chunk({ tool_calls: [{ index, function: { arguments: call.arguments.slice(i, i + pieceSize) } }] }),
      );
  });
  out.push(chunk({}, 'tool_calls'), usage(...tokens));
  return out;
}
