import type { DataBlock, TextBlock, ToolResultBlock } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { splitToolResult, truncationNote, withTruncationNote } from './split-tool-result';

type Part = TextBlock | DataBlock;
const t = (ch: string, n: number, id: string): TextBlock => ({ type: 'text', id, text: ch.repeat(n) });
const d = (id: string): DataBlock => ({
  type: 'data',
  id,
  source: { type: 'base64', data: 'base64data', mediaType: 'image/png' },
});
const result = (id: string, output: Part[]): ToolResultBlock => ({
  type: 'tool_result',
  id,
  name: 'test_tool',
  output,
  state: 'success',
  metadata: { source: 'x' },
});
// The reference tests' counters: text length, or a table by number of blocks.
const byLength = (blocks: readonly Part[]) =>
  blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
const byCount = (table: Record<number, number>) => (blocks: readonly Part[]) => table[blocks.length] ?? 50;
const LIMIT = 100;

describe('splitToolResult (reference compress_tool_result_test)', () => {
  it('leaves a result below the limit untouched', () => {
    expect(splitToolResult(result('test_1', [t('a', 12, 'x'), t('b', 12, 'y')]), LIMIT, () => 50)).toBeNull();
  });

  it('leaves a result exactly at the limit untouched', () => {
    expect(splitToolResult(result('test_2', [t('a', 13, 'x')]), LIMIT, () => 100)).toBeNull();
  });

  it('cuts a last text block by proportion and merges the kept text into the previous text block', () => {
    const r = result('test_3', [t('A', 20, 'block1'), t('B', 20, 'block2'), t('C', 100, 'block3')]);
    const split = splitToolResult(r, LIMIT, byLength)!;
    expect(split.kept).toMatchObject({ id: 'test_3', name: 'test_tool', state: 'success', metadata: {} });
    expect(split.offloaded).toMatchObject({ id: 'test_3', name: 'test_tool', state: 'success' });
    expect(split.kept.output).toEqual([
      t('A', 20, 'block1'),
      { type: 'text', id: 'block2', text: 'B'.repeat(20) + 'C'.repeat(60) },
    ]);
    expect(split.offloaded.output).toEqual([t('C', 40, 'block3')]);
    // The input is not mutated.
    expect(r.output[1]).toEqual(t('B', 20, 'block2'));
  });

  it('moves a last data block whole', () => {
    const r = result('test_4', [t('A', 20, 'block1'), t('B', 20, 'block2'), d('block3')]);
    const split = splitToolResult(r, LIMIT, byCount({ 3: 150, 2: 80 }))!;
    expect(split.kept.output).toEqual([t('A', 20, 'block1'), t('B', 20, 'block2')]);
    expect(split.offloaded.output).toEqual([d('block3')]);
  });

  it('keeps a first text block that fits the limit exactly and offloads the rest', () => {
    const r = result('test_5', [t('A', 100, 'block1'), t('B', 20, 'block2'), t('C', 20, 'block3')]);
    const split = splitToolResult(r, LIMIT, byLength)!;
    expect(split.kept.output).toEqual([t('A', 100, 'block1')]);
    expect(split.offloaded.output).toEqual([t('B', 20, 'block2'), t('C', 20, 'block3')]);
  });

  it('cuts the text after a first data block', () => {
    const r = result('test_6', [d('block1'), t('B', 20, 'block2'), t('C', 20, 'block3')]);
    const split = splitToolResult(r, LIMIT, byCount({ 3: 150, 2: 80, 1: 60 }))!;
    expect(split.kept.output).toEqual([
      d('block1'),
      { type: 'text', id: 'block2', text: 'B'.repeat(20) + 'C'.repeat(5) },
    ]);
    expect(split.offloaded.output).toEqual([t('C', 15, 'block3')]);
  });

  it('cuts a middle text block and prepends the rest to the first offloaded text block', () => {
    const r = result('test_7', [t('A', 20, 'block1'), t('B', 100, 'block2'), t('C', 20, 'block3')]);
    const split = splitToolResult(r, LIMIT, byLength)!;
    expect(split.kept.output).toEqual([
      { type: 'text', id: 'block1', text: 'A'.repeat(20) + 'B'.repeat(80) },
    ]);
    expect(split.offloaded.output).toEqual([
      { type: 'text', id: 'block3', text: 'B'.repeat(20) + 'C'.repeat(20) },
    ]);
  });

  it('starts a new text block with the boundary id after a middle data block', () => {
    const r = result('test_8', [t('A', 20, 'block1'), d('block2'), t('C', 20, 'block3')]);
    const split = splitToolResult(r, LIMIT, byCount({ 3: 150, 2: 80, 1: 40 }))!;
    expect(split.kept.output).toEqual([t('A', 20, 'block1'), d('block2'), t('C', 5, 'block3')]);
    expect(split.offloaded.output).toEqual([t('C', 15, 'block3')]);
  });

  it('never splits a surrogate pair', () => {
    const r = result('emoji', [{ type: 'text', id: 'e', text: '😀'.repeat(100) }]);
    const split = splitToolResult(r, 51, (blocks) =>
      blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0),
    )!;
    const kept = split.kept.output[0] as TextBlock;
    const cut = split.offloaded.output[0] as TextBlock;
    expect(kept.text + cut.text).toBe('😀'.repeat(100));
    expect(kept.text.length % 2).toBe(0);
  });
});

describe('truncation note', () => {
  it('names the file when there is one', () => {
    expect(truncationNote('/tmp/x.txt')).toBe(
      "\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context. You can refer to the file in '/tmp/x.txt' for the truncated content if needed.</system-reminder>",
    );
    expect(truncationNote()).toBe(
      '\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context.</system-reminder>',
    );
  });

  it('is appended to a last text block, or added as a new block after data', () => {
    const note = truncationNote();
    const withText = withTruncationNote(result('r', [t('A', 3, 'a')]), note, () => 'new');
    expect(withText.output).toEqual([{ type: 'text', id: 'a', text: `AAA${note}` }]);
    const withData = withTruncationNote(result('r', [d('img')]), note, () => 'new');
    expect(withData.output).toEqual([d('img'), { type: 'text', id: 'new', text: note }]);
  });
});
