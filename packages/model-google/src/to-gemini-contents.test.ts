import { assistantMsg, textBlock, userMsg, type ContentBlock } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { SKIP_THOUGHT_SIGNATURE, SYNTHETIC_ID_KEY, toGeminiContents } from './to-gemini-contents';

const call = (id: string, input: string, providerData?: Record<string, string | boolean>): ContentBlock => ({
  type: 'tool_call',
  id,
  name: 'lookup',
  input,
  state: 'finished',
  ...(providerData ? { providerData } : {}),
});
const result = (id: string, text: string, extra: ContentBlock[] = []): ContentBlock => ({
  type: 'tool_result',
  id,
  name: 'lookup',
  output: [textBlock(text), ...(extra as Array<Extract<ContentBlock, { type: 'data' | 'text' }>>)],
  state: 'success',
  metadata: {},
});

describe('toGeminiContents', () => {
  it('maps data blocks: base64 and data: URLs inline, http(s)/gs URLs as fileData, other schemes as a text note', () => {
    const contents = toGeminiContents([
      userMsg([
        textBlock('Look:'),
        { type: 'data', id: 'd1', source: { type: 'base64', data: 'iVBORw0KGgo=', mediaType: 'image/png' } },
        {
          type: 'data',
          id: 'd2',
          source: { type: 'url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
          name: 'a.pdf',
        },
        { type: 'data', id: 'd3', source: { type: 'url', url: 'gs://bucket/v.mp4', mediaType: 'video/mp4' } },
        {
          type: 'data',
          id: 'd4',
          source: { type: 'url', url: 'data:text/plain,h%C3%A9', mediaType: 'text/plain' },
        },
        {
          type: 'data',
          id: 'd5',
          source: { type: 'url', url: 'data:image/gif;base64,R0lGOD', mediaType: 'image/gif' },
        },
        {
          type: 'data',
          id: 'd6',
          source: { type: 'url', url: 'workspace:///data/ab.png', mediaType: 'image/png' },
          name: 'ab.png',
        },
      ]),
    ]);
    expect(contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Look:' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          {
            fileData: {
              fileUri: 'https://example.com/a.pdf',
              mimeType: 'application/pdf',
              displayName: 'a.pdf',
            },
          },
          { fileData: { fileUri: 'gs://bucket/v.mp4', mimeType: 'video/mp4' } },
          { inlineData: { mimeType: 'text/plain', data: Buffer.from('hé').toString('base64') } },
          { inlineData: { mimeType: 'image/gif', data: 'R0lGOD' } },
          {
            text: expect.stringContaining(
              "file named 'ab.png' (image/png) is saved at workspace:///data/ab.png",
            ),
          },
        ],
      },
    ]);
  });

  it('sends hints as user turns at their position and merges adjacent user contents', () => {
    const reply = assistantMsg([
      { type: 'text', id: 't1', text: 'Checking.' },
      call('c1', '{"q":"x"}', { thoughtSignature: 'sig-1' }),
      result('c1', 'found x', [
        { type: 'data', id: 'img', source: { type: 'base64', data: 'AAAA', mediaType: 'image/png' } },
      ]),
      {
        type: 'hint',
        id: 'h1',
        hint: '<system-reminder>time: noon</system-reminder>',
        source: 'injection',
        createdAt: '2026-01-01T00:00:00Z',
      },
      { type: 'text', id: 't2', text: 'Done.' },
    ]);
    expect(toGeminiContents([userMsg('Find x'), reply])).toEqual([
      { role: 'user', parts: [{ text: 'Find x' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { id: 'c1', name: 'lookup', args: { q: 'x' } }, thoughtSignature: 'sig-1' },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'lookup', response: { output: 'found x' } } },
          { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
          { text: '<system-reminder>time: noon</system-reminder>' },
        ],
      },
      { role: 'model', parts: [{ text: 'Done.' }] },
    ]);
  });

  it('omits made-up ids, sends non-object arguments as {}, and reports failed results as errors', () => {
    const reply = assistantMsg([
      call('call_abc', 'not json', { [SYNTHETIC_ID_KEY]: true }),
      call('call_def', '[1,2]', { [SYNTHETIC_ID_KEY]: true }),
      { ...(result('call_abc', 'Invalid input') as object), state: 'error' } as ContentBlock,
      { ...(result('call_def', '') as object), state: 'denied', output: [] } as unknown as ContentBlock,
    ]);
    const [, model, tool] = toGeminiContents([userMsg('go'), reply]);
    expect(model!.parts).toEqual([
      { functionCall: { name: 'lookup', args: {} } },
      { functionCall: { name: 'lookup', args: {} } },
    ]);
    expect(tool!.parts).toEqual([
      { functionResponse: { name: 'lookup', response: { error: 'Invalid input' } } },
      { functionResponse: { name: 'lookup', response: { error: 'denied' } } },
    ]);
  });

  it('keeps thought parts and signatures, and drops empty text without a signature', () => {
    const reply = assistantMsg([
      { type: 'thinking', id: 'k', thinking: 'Plan.', providerData: { thoughtSignature: 'sig-t' } },
      { type: 'thinking', id: 'k2', thinking: '' },
      { type: 'text', id: 't', text: '' },
      { type: 'text', id: 't3', text: '', providerData: { thoughtSignature: 'sig-end' } },
    ]);
    expect(toGeminiContents([userMsg('q'), reply])[1]).toEqual({
      role: 'model',
      parts: [
        { text: 'Plan.', thought: true, thoughtSignature: 'sig-t' },
        { text: '', thoughtSignature: 'sig-end' },
      ],
    });
  });

  it('fills the documented placeholder signature on the first call of unsigned turns only when asked', () => {
    const reply = assistantMsg([
      call('a', '{}'),
      call('b', '{}'),
      result('a', '1'),
      result('b', '2'),
      call('c', '{}', { thoughtSignature: 'real' }),
      result('c', '3'),
    ]);
    const filled = toGeminiContents([userMsg('q'), reply], { fillMissingSignatures: true });
    expect(filled[1]!.parts!.map((p) => p.thoughtSignature)).toEqual([SKIP_THOUGHT_SIGNATURE, undefined]);
    expect(filled[3]!.parts!.map((p) => p.thoughtSignature)).toEqual(['real']);
    const plain = toGeminiContents([userMsg('q'), reply]);
    expect(plain[1]!.parts!.map((p) => p.thoughtSignature)).toEqual([undefined, undefined]);
  });

  it('sends function responses in the order of their calls, whatever order the results came in', () => {
    const synthetic = { [SYNTHETIC_ID_KEY]: true };
    const contents = toGeminiContents([
      userMsg('Two lookups'),
      assistantMsg([
        call('c1', '{"q":"Paris"}', synthetic),
        call('c2', '{"q":"Oslo"}', synthetic),
        // The second call finished first (the first one waited for a confirmation).
        result('c2', 'Oslo: 3°C'),
        result('c1', 'Paris: 18°C'),
      ]),
    ]);
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'lookup', response: { output: 'Paris: 18°C' } } },
        { functionResponse: { name: 'lookup', response: { output: 'Oslo: 3°C' } } },
      ],
    });
  });

  it('sends a generated image back with its thought signature (multi-turn image editing)', () => {
    const contents = toGeminiContents([
      userMsg('draw a cat'),
      assistantMsg([
        {
          type: 'data',
          id: 'img',
          source: { type: 'base64', data: 'AAAA', mediaType: 'image/png' },
          providerData: { thoughtSignature: 'sig-img' },
        },
      ]),
      userMsg('make it blue'),
    ]);
    expect(contents[1]).toEqual({
      role: 'model',
      parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' }, thoughtSignature: 'sig-img' }],
    });
  });
});
