import { type DataBlock, assistantMsg, userMsg } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { dataPart, toChatMessages, toChatToolChoice } from './chat-request';

const png: DataBlock = {
  type: 'data',
  id: 'd1',
  source: { type: 'base64', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
};

describe('toChatMessages', () => {
  it('sends images in user turns as image parts with data: URLs, text-only turns as strings', () => {
    const messages = toChatMessages({
      systemPrompt: 'Be kind.',
      messages: [userMsg([{ type: 'text', id: 't', text: 'What is this?' }, png]), userMsg('Plain')],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'Be kind.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
      { role: 'user', content: 'Plain' },
    ]);
  });

  it('maps calls, results and hints of a reply onto assistant, tool and user messages in order', () => {
    const reply = assistantMsg([
      { type: 'text', id: 'a', text: 'Checking.' },
      { type: 'tool_call', id: 'call_1', name: 'screenshot', input: '{}', state: 'finished' },
      { type: 'tool_call', id: 'call_2', name: 'clock', input: '', state: 'finished' },
      {
        type: 'tool_result',
        id: 'call_1',
        name: 'screenshot',
        output: [png],
        state: 'success',
        metadata: {},
      },
      {
        type: 'tool_result',
        id: 'call_2',
        name: 'clock',
        output: [{ type: 'text', id: 'r', text: '12:00' }],
        state: 'success',
        metadata: {},
      },
      { type: 'hint', id: 'h', hint: 'Time is short.', source: null, createdAt: '2026-01-01T00:00:00Z' },
      { type: 'text', id: 'b', text: 'Done.' },
    ]);
    expect(toChatMessages({ systemPrompt: '', messages: [userMsg('Go'), reply] })).toEqual([
      { role: 'user', content: 'Go' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
          { id: 'call_2', type: 'function', function: { name: 'clock', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '(1 attachment(s) follow)' },
      { role: 'tool', tool_call_id: 'call_2', content: '12:00' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Attachments returned by the tool call call_1 (screenshot):' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
      { role: 'user', content: 'Time is short.' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('sends reasoning_content back only on tool-call turns of the current reply, and only when it came that way', () => {
    const thinking = (text: string, field?: string) => ({
      type: 'thinking' as const,
      id: text,
      thinking: text,
      ...(field ? { providerData: { openai: { field } } } : {}),
    });
    const call = (id: string) => ({
      type: 'tool_call' as const,
      id,
      name: 'f',
      input: '{}',
      state: 'finished' as const,
    });
    const result = (id: string) => ({
      type: 'tool_result' as const,
      id,
      name: 'f',
      output: [],
      state: 'success' as const,
      metadata: {},
    });
    const earlier = assistantMsg([
      thinking('old', 'reasoning_content'),
      call('c0'),
      result('c0'),
      { type: 'text', id: 't', text: 'ok' },
    ]);
    const current = assistantMsg([
      thinking('now', 'reasoning_content'),
      call('c1'),
      result('c1'),
      thinking('foreign'),
      call('c2'),
      result('c2'),
    ]);
    const out = toChatMessages({
      systemPrompt: '',
      messages: [userMsg('a'), earlier, userMsg('b'), current],
    });
    const assistants = out.filter((m) => m.role === 'assistant') as unknown as Array<Record<string, unknown>>;
    expect(assistants.map((m) => m.reasoning_content)).toEqual([undefined, undefined, 'now', undefined]);
    expect(
      toChatMessages({ systemPrompt: '', messages: [userMsg('b'), current] }, 'never').some(
        (m) => 'reasoning_content' in m,
      ),
    ).toBe(false);
    const all = toChatMessages(
      { systemPrompt: '', messages: [userMsg('a'), earlier, userMsg('b'), current] },
      'all',
    );
    expect(all.filter((m) => 'reasoning_content' in m)).toHaveLength(2);
  });

  it('drops assistant turns with nothing to send (thinking only)', () => {
    const reply = assistantMsg([{ type: 'thinking', id: 't', thinking: 'hmm' }]);
    expect(toChatMessages({ systemPrompt: '', messages: [userMsg('a'), reply] })).toEqual([
      { role: 'user', content: 'a' },
    ]);
  });
});

describe('dataPart', () => {
  it('maps audio and PDFs, passes https URLs, and replaces what cannot be sent with a note', () => {
    expect(
      dataPart({ type: 'data', id: 'a', source: { type: 'base64', data: 'UklGR', mediaType: 'audio/wav' } }),
    ).toEqual({
      type: 'input_audio',
      input_audio: { data: 'UklGR', format: 'wav' },
    });
    expect(
      dataPart({
        type: 'data',
        id: 'p',
        name: 'r.pdf',
        source: { type: 'base64', data: 'JVBER', mediaType: 'application/pdf' },
      }),
    ).toEqual({
      type: 'file',
      file: { file_data: 'data:application/pdf;base64,JVBER', filename: 'r.pdf' },
    });
    expect(
      dataPart({
        type: 'data',
        id: 'u',
        source: { type: 'url', url: 'https://x.test/a.jpg', mediaType: 'image/jpeg' },
      }),
    ).toEqual({
      type: 'image_url',
      image_url: { url: 'https://x.test/a.jpg' },
    });
    const offloaded = dataPart({
      type: 'data',
      id: 'w',
      name: 'shot.png',
      source: { type: 'url', url: 'workspace:///data/ab.png', mediaType: 'image/png' },
    });
    expect(offloaded).toEqual({
      type: 'text',
      text: "[attachment 'shot.png' (image/png) omitted: it cannot be sent to this model]",
    });
  });
});

describe('toChatToolChoice', () => {
  it('maps auto | none | required | a named tool', () => {
    expect(toChatToolChoice('auto')).toBe('auto');
    expect(toChatToolChoice('none')).toBe('none');
    expect(toChatToolChoice('required')).toBe('required');
    expect(toChatToolChoice({ name: 'f' })).toEqual({ type: 'function', function: { name: 'f' } });
  });
});
