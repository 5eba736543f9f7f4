import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

/** A 1×1 PNG. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** What the server saw, for tests to check: `started <id>`, `cancelled <id>`, `deleted <path>`, `list`. */
export type ServerLog = string[];

type Shape = Record<string, z.ZodType>;

/** What a tool handler gets besides its arguments (the part of the SDK's `RequestHandlerExtra` used here). */
interface ToolExtra {
  signal: AbortSignal;
  requestId: string | number;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: {
    method: 'notifications/progress';
    params: { progressToken: string | number; progress: number };
  }) => Promise<void>;
}

/**
 * A real MCP server (the SDK's `McpServer`) with the tools the tests need: schemas, images, errors, a slow
 * tool that notices cancellation, annotated tools, a tool that adds a tool at runtime. With `pageSize`,
 * `tools/list` answers a page at a time (the SDK's `McpServer` always answers with one page).
 */
export function createToolsServer(options: { pageSize?: number; log?: ServerLog } = {}): {
  server: McpServer;
  log: ServerLog;
} {
  const log = options.log ?? [];
  const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
  const listed: Tool[] = [];

  const define = (
    name: string,
    config: {
      description?: string;
      inputSchema?: Shape;
      annotations?: ToolAnnotations;
      outputSchema?: Shape;
    },
    handler: (args: any, extra: ToolExtra) => unknown,
  ) => {
    server.registerTool(name, config, handler as never);
    listed.push({
      name,
      ...(config.description ? { description: config.description } : {}),
      inputSchema: z.toJSONSchema(z.object(config.inputSchema ?? {})) as Tool['inputSchema'],
      ...(config.outputSchema
        ? { outputSchema: z.toJSONSchema(z.object(config.outputSchema)) as Tool['outputSchema'] }
        : {}),
      ...(config.annotations ? { annotations: config.annotations } : {}),
    });
  };
  const readOnly = { readOnlyHint: true };

  define(
    'add',
    { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: readOnly },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  define(
    'stats',
    {
      description: 'Statistics of a list of numbers, as structured content only',
      inputSchema: { values: z.array(z.number()).min(1) },
      outputSchema: { count: z.number(), mean: z.number() },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ values }: { values: number[] }) => ({
      content: [],
      structuredContent: { count: values.length, mean: values.reduce((s, v) => s + v, 0) / values.length },
    }),
  );
  define('image', { description: 'A tiny picture with a caption', annotations: readOnly }, () => ({
    content: [
      { type: 'text', text: 'a red pixel' },
      { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    ],
  }));
  define('resources', { description: 'Links and embedded resources', annotations: readOnly }, () => ({
    content: [
      {
        type: 'resource_link',
        uri: 'https://example.com/report.pdf',
        name: 'report',
        mimeType: 'application/pdf',
      },
      { type: 'resource_link', uri: 'file:///srv/notes.txt', name: 'notes', description: 'meeting notes' },
      { type: 'resource', resource: { uri: 'mem://greeting', text: 'hello from a resource' } },
      {
        type: 'resource',
        resource: { uri: 'mem://blob', blob: 'AAEC', mimeType: 'application/octet-stream' },
      },
    ],
  }));
  define('fail', { description: 'Always fails', annotations: readOnly }, () => ({
    content: [{ type: 'text', text: 'the disk is on fire' }],
    isError: true,
  }));
  define(
    'slow',
    { description: 'Waits, unless cancelled', inputSchema: { ms: z.number() }, annotations: readOnly },
    async ({ ms }, extra) => {
      log.push(`started ${extra.requestId}`);
      const cancelled = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (cancelled) log.push(`cancelled ${extra.requestId}`);
      return { content: [{ type: 'text', text: cancelled ? 'cancelled' : `slept ${ms} ms` }] };
    },
  );
  define(
    'slow_write',
    {
      description: 'Waits, then writes (not idempotent, not destructive)',
      inputSchema: { ms: z.number() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async ({ ms }, extra) => {
      log.push(`started ${extra.requestId}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`wrote ${extra.requestId}`);
      return { content: [{ type: 'text', text: 'written' }] };
    },
  );
  define(
    'progress',
    {
      description: 'Works for a while, reporting progress',
      inputSchema: { ms: z.number(), everyMs: z.number() },
      annotations: readOnly,
    },
    async ({ ms, everyMs }, extra) => {
      const token = extra._meta?.progressToken;
      for (let done = 0; done < ms; done += everyMs) {
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: done },
          });
        await new Promise((resolve) => setTimeout(resolve, everyMs));
      }
      return { content: [{ type: 'text', text: `worked ${ms} ms` }] };
    },
  );
  define('log', { description: 'What the server saw', annotations: readOnly }, () => ({
    content: [{ type: 'text', text: JSON.stringify(log) }],
  }));
  define('pid', { description: 'The process id of the server', annotations: readOnly }, () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }));
  define(
    'delete_file',
    {
      description: 'Deletes a file',
      inputSchema: { path: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    ({ path }) => {
      log.push(`deleted ${path}`);
      return { content: [{ type: 'text', text: `deleted ${path}` }] };
    },
  );
  define(
    'write_note',
    {
      description: 'Saves a note (never destroys anything; saving twice changes nothing)',
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    ({ text }) => {
      log.push(`note ${text}`);
      return { content: [{ type: 'text', text: 'saved' }] };
    },
  );
  define('unannotated', { description: 'A tool that says nothing about itself' }, () => ({
    content: [{ type: 'text', text: 'done' }],
  }));
  define('files.read', { description: 'A name providers refuse', annotations: readOnly }, () => ({
    content: [{ type: 'text', text: 'file contents' }],
  }));
  define(
    'add_tool',
    { description: 'Adds an echo tool at runtime', inputSchema: { name: z.string() }, annotations: readOnly },
    ({ name }) => {
      // Registering on a connected McpServer sends notifications/tools/list_changed.
      define(
        name,
        { description: 'Echoes its text', inputSchema: { text: z.string() }, annotations: readOnly },
        ({ text }) => ({
          content: [{ type: 'text', text: `echo: ${text}` }],
        }),
      );
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  );

  const pageSize = options.pageSize ?? 0;
  if (pageSize > 0)
    server.server.setRequestHandler(ListToolsRequestSchema, (request) => {
      log.push(`list ${request.params?.cursor ?? 'start'}`);
      const start = Number(request.params?.cursor ?? 0);
      const next = start + pageSize;
      return {
        tools: listed.slice(start, next),
        ...(next < listed.length ? { nextCursor: String(next) } : {}),
      };
    });
  return { server, log };
}
