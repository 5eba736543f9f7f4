import type { DataBlock, JSONObject, JSONValue, TextBlock, ToolResult } from '@agentkit/core';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type OutputBlock = Omit<TextBlock, 'id'> | Omit<DataBlock, 'id'>;

const text = (value: string): OutputBlock => ({ type: 'text', text: value });

const FETCHABLE = /^(https?|data):/i;

function contentBlock(item: CallToolResult['content'][number]): OutputBlock {
  switch (item.type) {
    case 'text':
      return text(item.text);
    case 'image':
    case 'audio':
      return { type: 'data', source: { type: 'base64', data: item.data, mediaType: item.mimeType } };
    case 'resource': {
      const { resource } = item;
      if ('text' in resource) return text(resource.text);
      return {
        type: 'data',
        source: {
          type: 'base64',
          data: resource.blob,
          mediaType: resource.mimeType ?? 'application/octet-stream',
        },
        name: resource.uri,
      };
    }
    case 'resource_link': {
      // A link the provider can fetch goes as data; any other scheme (file:, a server's own) only means
      // something to the model as text, which it can pass to another tool.
      if (item.mimeType && FETCHABLE.test(item.uri))
        return {
          type: 'data',
          source: { type: 'url', url: item.uri, mediaType: item.mimeType },
          name: item.name,
        };
      const type = item.mimeType ? ` (${item.mimeType})` : '';
      const about = item.description ? `: ${item.description}` : '';
      return text(`Resource '${item.name}' at ${item.uri}${type}${about}`);
    }
    default:
      // A content type newer than this package: the model still sees what the server sent.
      return text(JSON.stringify(item));
  }
}

/**
 * Maps an MCP `tools/call` result onto an agentkit tool result: text as text blocks, images and audio as
 * base64 data blocks, embedded resources as text or base64 data, resource links as URL data blocks
 * (http, https, data) or a line of text naming the link. `structuredContent` goes to the model as JSON text
 * when the result has no text of its own, and always into `metadata.structuredContent`. Adjacent text items
 * are joined with a newline (one text block). `isError: true`
 * becomes state `error`, so the model sees the failure as the tool's answer.
 */
export function callResultToToolResult(
  result: CallToolResult,
  source: { server: string; tool: string },
): ToolResult {
  const output: OutputBlock[] = [];
  for (const block of (result.content ?? []).map(contentBlock)) {
    // Core streams text as deltas into one block, so adjacent texts would run together: keep them apart.
    const last = output.at(-1);
    if (block.type === 'text' && last?.type === 'text') last.text += `\n${block.text}`;
    else output.push(block);
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !output.some((block) => block.type === 'text'))
    output.unshift(text(JSON.stringify(structured)));
  const metadata: JSONObject = { mcpServer: source.server, mcpTool: source.tool };
  if (structured !== undefined) metadata.structuredContent = structured as JSONValue;
  return { output, state: result.isError ? 'error' : 'success', metadata };
}
