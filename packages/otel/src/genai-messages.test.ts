import { createMsg } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import {
  inputMessages,
  outputMessage,
  replyFinishReason,
  systemInstructions,
  toolOutputValue,
} from './genai-messages';

describe('inputMessages', () => {
  it('maps data blocks to blob and uri parts with their modality, and hints to user turns', () => {
    const user = createMsg({
      role: 'user',
      content: [
        { type: 'text', id: 't', text: 'What is this?' },
        { type: 'data', id: 'd1', source: { type: 'base64', mediaType: 'image/png', data: 'iVBORw0=' } },
        {
          type: 'data',
          id: 'd2',
          source: { type: 'url', mediaType: 'application/pdf', url: 'https://x/a.pdf' },
        },
      ],
    });
    const reply = createMsg({
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'c1', name: 'f', input: '{not json', state: 'finished' },
        {
          type: 'tool_result',
          id: 'c1',
          name: 'f',
          output: [{ type: 'text', id: 'r', text: 'plain words' }],
          state: 'error',
          metadata: {},
        },
        { type: 'hint', id: 'h', hint: 'Be brief.', source: 'injection', createdAt: '' },
        { type: 'thinking', id: 'th', thinking: '' },
        { type: 'text', id: 'a', text: 'A logo.' },
      ],
    });
    expect(inputMessages([user, reply])).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is this?' },
          { type: 'blob', mime_type: 'image/png', modality: 'image', content: 'iVBORw0=' },
          { type: 'uri', mime_type: 'application/pdf', modality: 'application', uri: 'https://x/a.pdf' },
        ],
      },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'f', arguments: '{not json' }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'plain words' }] },
      { role: 'user', parts: [{ type: 'text', content: 'Be brief.' }] },
      // A redacted reasoning block has nothing to show.
      { role: 'assistant', parts: [{ type: 'text', content: 'A logo.' }] },
    ]);
  });
});

describe('the other content helpers', () => {
  it('tool output: JSON text becomes its value, data makes a list of parts', () => {
    expect(
      toolOutputValue([
        { type: 'text', id: 'a', text: '{"ok":' },
        { type: 'text', id: 'b', text: 'true}' },
      ]),
    ).toEqual({
      ok: true,
    });
    expect(
      toolOutputValue([
        { type: 'text', id: 'a', text: 'chart:' },
        { type: 'data', id: 'd', source: { type: 'base64', mediaType: 'image/jpeg', data: 'AA==' } },
      ]),
    ).toEqual([
      { type: 'text', content: 'chart:' },
      { type: 'blob', mime_type: 'image/jpeg', modality: 'image', content: 'AA==' },
    ]);
  });

  it('output messages, finish reasons and instructions', () => {
    expect(outputMessage([{ type: 'text', id: 'a', text: 'Hi' }], 'stop')).toEqual({
      role: 'assistant',
      parts: [{ type: 'text', content: 'Hi' }],
      finish_reason: 'stop',
    });
    expect(replyFinishReason('completed')).toBe('stop');
    expect(replyFinishReason('exceed_max_iters')).toBe('exceed_max_iters');
    expect(systemInstructions('')).toBeUndefined();
  });
});
