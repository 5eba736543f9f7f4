import { describe, expect, it } from 'vitest';
import { callResultToToolResult } from './call-result-to-tool-result';

const source = { server: 'srv', tool: 'tl' };

describe('callResultToToolResult', () => {
  it('joins adjacent texts and keeps data blocks in order', () => {
    const result = callResultToToolResult(
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
          { type: 'text', text: 'three' },
        ],
      },
      source,
    );
    expect(result).toEqual({
      output: [
        { type: 'text', text: 'one\ntwo' },
        { type: 'data', source: { type: 'base64', data: 'AAAA', mediaType: 'image/jpeg' } },
        { type: 'text', text: 'three' },
      ],
      state: 'success',
      metadata: { mcpServer: 'srv', mcpTool: 'tl' },
    });
  });

  it('sends structured content as JSON text only when there is no text, and keeps it in metadata', () => {
    const only = callResultToToolResult({ content: [], structuredContent: { n: 1 } }, source);
    expect(only.output).toEqual([{ type: 'text', text: '{"n":1}' }]);
    expect(only.metadata?.structuredContent).toEqual({ n: 1 });
    const both = callResultToToolResult(
      { content: [{ type: 'text', text: 'n is 1' }], structuredContent: { n: 1 } },
      source,
    );
    expect(both.output).toEqual([{ type: 'text', text: 'n is 1' }]);
    expect(both.metadata?.structuredContent).toEqual({ n: 1 });
  });

  it('maps resource links: fetchable ones as URL data, others as a line of text', () => {
    const result = callResultToToolResult(
      {
        content: [
          { type: 'resource_link', uri: 'https://x.test/a.png', name: 'a', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'https://x.test/unknown', name: 'u' },
          { type: 'resource_link', uri: 'db://rows/7', name: 'row', mimeType: 'application/json' },
        ],
      },
      source,
    );
    expect(result.output).toEqual([
      {
        type: 'data',
        source: { type: 'url', url: 'https://x.test/a.png', mediaType: 'image/png' },
        name: 'a',
      },
      {
        type: 'text',
        text: "Resource 'u' at https://x.test/unknown\nResource 'row' at db://rows/7 (application/json)",
      },
    ]);
  });

  it('turns isError into an error result', () => {
    const result = callResultToToolResult(
      { content: [{ type: 'text', text: 'nope' }], isError: true },
      source,
    );
    expect(result.state).toBe('error');
    expect(result.output).toEqual([{ type: 'text', text: 'nope' }]);
  });
});
