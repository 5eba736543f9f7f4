import { createHash } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMsg, type DataBlock, type Msg, textBlock } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { FileOffloader } from './file-offloader';
import { limitContextImages } from './limit-images';
import type { Offloader } from './offloader';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const image = (name: string): DataBlock => ({
  type: 'data',
  id: `id-${name}`,
  name,
  source: { type: 'base64', data: PNG, mediaType: 'image/png' },
});

/** Six images: top level (user and assistant), inside a tool result, inside a hint; plus one audio block. */
function imageContext(): Msg[] {
  return [
    createMsg({ role: 'user', name: 'User', id: '1', content: [image('img1'), textBlock('hello')] }),
    createMsg({
      role: 'assistant',
      name: 'Friday',
      id: '2',
      content: [
        { type: 'tool_call', id: 'call_1', name: 'view', input: '{}', state: 'finished' },
        {
          type: 'tool_result',
          id: 'call_1',
          name: 'view',
          output: [textBlock('the image:'), image('img2')],
          state: 'success',
          metadata: {},
        },
        {
          type: 'hint',
          id: 'h',
          hint: [textBlock('a hint image:'), image('img3')],
          source: null,
          createdAt: '',
        },
        image('img4'),
      ],
    }),
    createMsg({
      role: 'user',
      name: 'User',
      id: '3',
      content: [
        { type: 'data', id: 'audio', source: { type: 'base64', data: 'AAAA', mediaType: 'audio/wav' } },
        {
          type: 'data',
          id: 'img5',
          name: 'img5',
          source: { type: 'url', url: 'https://example.com/img5.png', mediaType: 'image/png' },
        },
        image('img6'),
      ],
    }),
  ];
}

const removed = (n: string) =>
  `<system-reminder>The image named '${n}' is removed to free up context space.</system-reminder>`;
const offloaded = (n: string, url: string) =>
  `<system-reminder>The image named '${n}' is offloaded into ${url}, you can refer to it when needed.</system-reminder>`;

function shape(context: Msg[]): unknown[] {
  return context.map((m) =>
    m.content.map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'data') return `data:${b.name ?? b.id}`;
      if (b.type === 'hint') return { hint: typeof b.hint === 'string' ? b.hint : shapeParts(b.hint) };
      if (b.type === 'tool_result') return { result: shapeParts(b.output) };
      return b.type;
    }),
  );
}
const shapeParts = (parts: Array<{ type: string; text?: string; name?: string | null }>) =>
  parts.map((p) => (p.type === 'text' ? p.text : `data:${p.name}`));

describe('limitContextImages (reference max_image_num cases)', () => {
  it('removes the oldest images beyond the limit without an offloader', async () => {
    const context = imageContext();
    const next = (await limitContextImages(context, { maxImageNum: 2, hintSource: '@agentkit/context' }))!;
    expect(shape(next)).toEqual([
      [removed('img1'), 'hello'],
      [
        'tool_call',
        { result: ['the image:', removed('img2')] },
        { hint: ['a hint image:', removed('img3')] },
        { hint: removed('img4') },
      ],
      ['data:audio', 'data:img5', 'data:img6'],
    ]);
    // A top-level image of an assistant message becomes a hint; a user message's becomes text.
    expect(next[1]!.content[3]).toMatchObject({ type: 'hint', source: '@agentkit/context' });
    expect(next[0]!.content[0]!.type).toBe('text');
    // The input is untouched, unchanged messages are reused, and a second call is a no-op.
    expect(shape(context)[0]).toEqual(['data:img1', 'hello']);
    expect(next[2]).toBe(context[2]);
    expect(await limitContextImages(next, { maxImageNum: 2, hintSource: null })).toBeNull();
  });

  it('offloads the oldest images and keeps URL images as their URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentkit-img-'));
    try {
      const offloader = new FileOffloader({ directory: dir, dataUrlBase: 'workspace:///' });
      const next = (await limitContextImages(imageContext(), {
        maxImageNum: 1,
        offloader,
        hintSource: null,
      }))!;
      const rel = `data/${createHash('sha256').update(PNG).digest('hex')}`;
      const url = `workspace:///${rel}.png`;
      await expect(stat(join(dir, `${rel}.png`))).resolves.toBeTruthy();
      expect(shape(next)).toEqual([
        [offloaded('img1', url), 'hello'],
        [
          'tool_call',
          { result: ['the image:', offloaded('img2', url)] },
          { hint: ['a hint image:', offloaded('img3', url)] },
          { hint: offloaded('img4', url) },
        ],
        ['data:audio', offloaded('img5', 'https://example.com/img5.png'), 'data:img6'],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with the default limit of 5 only the oldest of six images goes', async () => {
    const next = (await limitContextImages(imageContext(), { maxImageNum: 5, hintSource: null }))!;
    expect(shape(next)[0]).toEqual([removed('img1'), 'hello']);
    expect(shape(next).slice(1)).toEqual(shape(imageContext()).slice(1));
  });

  it('keeps an image when the offloader fails, and says so', async () => {
    const warnings: string[] = [];
    const failing: Offloader = {
      offloadDataBlock: async () => {
        throw new Error('disk full');
      },
      offloadContext: async () => '',
      offloadToolResult: async () => '',
    };
    const logger = { warn: (m: string) => warnings.push(m), error: () => {} };
    const next = await limitContextImages(imageContext(), {
      maxImageNum: 4,
      offloader: failing,
      hintSource: null,
      logger,
    });
    // img1 and img2 could not be stored and stay; nothing else changes.
    expect(next).toBeNull();
    expect(warnings).toHaveLength(2);
  });
});
