import {
  Agent,
  AgentkitError,
  type Msg,
  type ToolResultBlock,
  getBlocks,
  type Tool,
  userConfirmResult,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient, McpConnectionError, mcpTools } from '../src/index';
import { stdioToolsServer, waitFor } from './helpers';
import { PIXEL_PNG } from './servers/tools-server';

const results = (msg: Msg): ToolResultBlock[] => getBlocks(msg, 'tool_result');
const outputText = (block: ToolResultBlock | undefined) =>
  (block?.output ?? [])
    .map((part) => (part.type === 'text' ? part.text : `[${part.source.mediaType}]`))
    .join('|');

const opened: McpClient[] = [];
function client(env: Record<string, string> = {}, options = {}): McpClient {
  const made = new McpClient('tools', stdioToolsServer(env, options));
  opened.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function serverLog(tools: McpClient): Promise<string[]> {
  const result = await tools.callTool('log');
  return JSON.parse((result.content[0] as { text: string }).text);
}

async function serverPid(tools: McpClient): Promise<number> {
  const result = await tools.callTool('pid');
  return Number((result.content[0] as { text: string }).text);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('MCP tools over stdio', () => {
  it('mounts every tool with its schema and description, and calls it', async () => {
    const tools = client();
    const model = new ScriptedModel([[toolCallChunk('add', { a: 2, b: 3 })], textChunks('2 + 3 = 5')]);
    const agent = new Agent({ name: 'calc', model, plugins: [mcpTools({ servers: { tools } })] });

    const msg = await agent.reply('What is 2 + 3?');

    expect(msg.finishedReason).toBe('completed');
    const [result] = results(msg);
    expect(result).toMatchObject({
      name: 'add',
      state: 'success',
      metadata: { mcpServer: 'tools', mcpTool: 'add' },
    });
    expect(outputText(result)).toBe('5');
    const sent = model.requests[0]!.tools;
    const add = sent.find((t) => t.name === 'add');
    expect(add?.description).toBe('Add two numbers');
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    // `files.read` is not a name providers accept.
    expect(sent.map((t) => t.name)).toContain('files_read');
    for (const tool of sent) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  }, 60_000);

  it('maps annotations: destructive tools (and, by the spec, unannotated ones) ask first', async () => {
    const byName = new Map((await client().tools()).map((tool) => [tool.name, tool]));
    const flags = (name: string) => {
      const tool = byName.get(name) as Tool & { idempotent?: boolean };
      return {
        needsConfirmation: tool.needsConfirmation,
        concurrencySafe: tool.concurrencySafe,
        idempotent: tool.idempotent,
      };
    };
    expect(flags('add')).toEqual({ needsConfirmation: false, concurrencySafe: true, idempotent: true });
    expect(flags('delete_file')).toEqual({
      needsConfirmation: true,
      concurrencySafe: false,
      idempotent: false,
    });
    expect(flags('unannotated')).toEqual({
      needsConfirmation: true,
      concurrencySafe: false,
      idempotent: false,
    });
    expect(flags('write_note')).toEqual({
      needsConfirmation: false,
      concurrencySafe: false,
      idempotent: true,
    });

    const trusted = new Map(
      (await client({}, { confirm: 'never' }).tools()).map((tool) => [tool.name, tool]),
    );
    expect(trusted.get('delete_file')?.needsConfirmation).toBe(false);
    const careful = await client({}, { confirm: (tool: { name: string }) => tool.name === 'add' }).tools();
    expect(careful.filter((tool) => tool.needsConfirmation).map((tool) => tool.name)).toEqual(['add']);
  }, 60_000);

  it('asks before a destructive call and runs it once confirmed', async () => {
    const tools = client();
    const model = new ScriptedModel([
      [toolCallChunk('delete_file', { path: '/tmp/x' }, 'call_del')],
      textChunks('Deleted.'),
    ]);
    const agent = new Agent({ name: 'ops', model, plugins: [mcpTools({ servers: { tools } })] });

    const paused = await agent.reply('Delete /tmp/x');
    expect(paused.finishedReason).toBeNull();
    expect(await serverLog(tools)).not.toContain('deleted /tmp/x');

    const call = getBlocks(paused, 'tool_call')[0]!;
    const done = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: call }]));
    expect(done.finishedReason).toBe('completed');
    expect(outputText(results(done)[0])).toBe('deleted /tmp/x');
    expect(await serverLog(tools)).toContain('deleted /tmp/x');
  }, 60_000);

  it('maps images, audio, resources, structured content and isError onto tool results', async () => {
    const tools = client();
    const model = new ScriptedModel([
      [
        toolCallChunk('image', {}, 'c_image'),
        toolCallChunk('resources', {}, 'c_res'),
        toolCallChunk('stats', { values: [1, 2, 6] }, 'c_stats'),
        toolCallChunk('fail', {}, 'c_fail'),
      ],
      textChunks('Seen.'),
    ]);
    const agent = new Agent({ name: 'viewer', model, plugins: [mcpTools({ servers: { tools } })] });
    const msg = await agent.reply('Show me');
    const byId = new Map(results(msg).map((r) => [r.id, r]));

    const image = byId.get('c_image')!;
    expect(image.state).toBe('success');
    expect(image.output).toMatchObject([
      { type: 'text', text: 'a red pixel' },
      { type: 'data', source: { type: 'base64', data: PIXEL_PNG, mediaType: 'image/png' } },
      { type: 'data', source: { type: 'base64', data: 'UklGRg==', mediaType: 'audio/wav' } },
    ]);
    expect(byId.get('c_res')!.output).toMatchObject([
      {
        type: 'data',
        source: { type: 'url', url: 'https://example.com/report.pdf', mediaType: 'application/pdf' },
      },
      {
        type: 'text',
        text: "Resource 'notes' at file:///srv/notes.txt: meeting notes\nhello from a resource",
      },
      { type: 'data', source: { type: 'base64', data: 'AAEC' }, name: 'mem://blob' },
    ]);
    const stats = byId.get('c_stats')!;
    expect(JSON.parse(outputText(stats))).toEqual({ count: 3, mean: 3 });
    expect(stats.metadata.structuredContent).toEqual({ count: 3, mean: 3 });
    expect(byId.get('c_fail')).toMatchObject({ state: 'error' });
    expect(outputText(byId.get('c_fail'))).toBe('the disk is on fire');
    // The model's next request carries the image to it.
    const toolTurn = model.requests[1]!.messages.at(-1)!;
    expect(JSON.stringify(toolTurn)).toContain(PIXEL_PNG);
  }, 60_000);

  it('follows nextCursor through every page, and lists once until the list changes', async () => {
    const tools = client({ PAGE_SIZE: '3' });
    const model = new ScriptedModel([textChunks('one'), textChunks('two')]);
    const agent = new Agent({ name: 'pager', model, plugins: [mcpTools({ servers: { tools } })] });
    await agent.reply('first');
    await agent.reply('second');
    const names = model.requests[0]!.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['add', 'stats', 'slow', 'delete_file', 'files_read', 'add_tool']),
    );
    expect(names).toHaveLength(15);
    expect(model.requests[1]!.tools.map((t) => t.name)).toEqual(names);
    expect((await serverLog(tools)).filter((line) => line.startsWith('list'))).toEqual([
      'list start',
      'list 3',
      'list 6',
      'list 9',
      'list 12',
    ]);
  }, 60_000);

  it('picks up a tool added at runtime (notifications/tools/list_changed) on the next reply', async () => {
    const tools = client();
    const model = new ScriptedModel([
      [toolCallChunk('add_tool', { name: 'echo' })],
      textChunks('Added.'),
      [toolCallChunk('echo', { text: 'hi' })],
      textChunks('Echoed.'),
    ]);
    const agent = new Agent({ name: 'grower', model, plugins: [mcpTools({ servers: { tools } })] });
    const changed = new Promise<void>((resolve) => tools.onToolsChanged(resolve));

    await agent.reply('Add an echo tool');
    await changed;
    expect(model.requests[0]!.tools.map((t) => t.name)).not.toContain('echo');
    const second = await agent.reply('Echo hi');

    expect(model.requests[2]!.tools.map((t) => t.name)).toContain('echo');
    expect(outputText(results(second)[0])).toBe('echo: hi');
  }, 60_000);

  it('an interrupted reply sends MCP cancellation, which the server sees', async () => {
    const tools = client();
    const model = new ScriptedModel([[toolCallChunk('slow', { ms: 60_000 })], textChunks('never')]);
    const agent = new Agent({ name: 'waiter', model, plugins: [mcpTools({ servers: { tools } })] });
    const controller = new AbortController();

    const replying = agent.reply('Wait', { signal: controller.signal });
    await waitFor(async () => (await serverLog(tools)).some((line) => line.startsWith('started')));
    controller.abort();
    const msg = await replying;

    expect(msg.finishedReason).toBe('interrupted');
    expect(results(msg)[0]?.state).toBe('interrupted');
    const started = (await serverLog(tools)).find((line) => line.startsWith('started'))!;
    const requestId = started.split(' ')[1];
    await waitFor(async () => (await serverLog(tools)).includes(`cancelled ${requestId}`));
  }, 60_000);

  it('a call that outlives timeoutMs becomes a tool error the model sees, and is cancelled on the server', async () => {
    const tools = client({}, { timeoutMs: 500 });
    const model = new ScriptedModel([[toolCallChunk('slow', { ms: 30_000 })], textChunks('Too slow.')]);
    const agent = new Agent({ name: 'impatient', model, plugins: [mcpTools({ servers: { tools } })] });

    const msg = await agent.reply('Wait');

    expect(msg.finishedReason).toBe('completed');
    const [result] = results(msg);
    expect(result?.state).toBe('error');
    expect(outputText(result)).toContain('within 500 ms');
    await waitFor(async () => (await serverLog(tools)).some((line) => line.startsWith('cancelled')));
  }, 60_000);

  it('a server killed mid-call fails that call as a tool error; the next call restarts it and works', async () => {
    const tools = client();
    const model = new ScriptedModel([
      [toolCallChunk('slow_write', { ms: 60_000 })],
      textChunks('It died.'),
      [toolCallChunk('pid', {})],
      textChunks('Back.'),
    ]);
    const agent = new Agent({ name: 'survivor', model, plugins: [mcpTools({ servers: { tools } })] });
    const firstPid = await serverPid(tools);

    const replying = agent.reply('Write');
    await waitFor(async () => (await serverLog(tools)).some((line) => line.startsWith('started')));
    process.kill(firstPid, 'SIGKILL');
    const first = await replying;

    // Not idempotent: it may have written before dying, so it is not sent again.
    expect(first.finishedReason).toBe('completed');
    expect(results(first)[0]?.state).toBe('error');
    expect(outputText(results(first)[0])).toContain('Connection closed');
    await waitFor(() => !alive(firstPid));

    const second = await agent.reply('Again');
    const [result] = results(second);
    expect(result?.state).toBe('success');
    const secondPid = Number(outputText(result));
    expect(secondPid).toBeGreaterThan(0);
    expect(secondPid).not.toBe(firstPid);
  }, 60_000);

  it('a read-only call whose server died under it is sent again on a new process', async () => {
    const tools = client();
    const model = new ScriptedModel([[toolCallChunk('slow', { ms: 1_500 })], textChunks('Slept.')]);
    const agent = new Agent({ name: 'sleeper', model, plugins: [mcpTools({ servers: { tools } })] });
    const firstPid = await serverPid(tools);

    const replying = agent.reply('Sleep');
    await waitFor(async () => (await serverLog(tools)).some((line) => line.startsWith('started')));
    process.kill(firstPid, 'SIGKILL');
    const msg = await replying;

    expect(results(msg)[0]).toMatchObject({ state: 'success' });
    expect(outputText(results(msg)[0])).toBe('slept 1500 ms');
    expect(await serverPid(tools)).not.toBe(firstPid);
  }, 60_000);

  it('a server that fails to start gives McpConnectionError naming it, with its stderr', async () => {
    const missing = new McpClient('ghost', {
      command: '/nonexistent/mcp-server-binary',
      connectTimeoutMs: 10_000,
    });
    opened.push(missing);
    const error = await missing.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectionError);
    expect(AgentkitError.isInstance(error) && error.code).toBe('MCP_CONNECTION');
    expect((error as McpConnectionError).server).toBe('ghost');
    expect((error as Error).message).toContain("MCP server 'ghost'");
    expect((error as Error).message).toContain('ENOENT');

    const stderr: string[] = [];
    const dying = client(
      { FAIL_AT_START: 'no API key configured' },
      { stderr: (text: string) => stderr.push(text) },
    );
    const died = await dying.connect().catch((e: unknown) => e);
    expect(died).toBeInstanceOf(McpConnectionError);
    expect((died as Error).message).toContain('exited');
    expect((died as Error).message).toContain('fatal: no API key configured');
    expect(stderr.join('')).toBe('fatal: no API key configured\n');

    // A process that starts but never answers the handshake (nor exits when its stdin closes) is stopped.
    let mutePid = 0;
    const mute = new McpClient('mute', {
      command: process.execPath,
      args: ['-e', 'process.stderr.write(String(process.pid)); setInterval(() => {}, 1000)'],
      connectTimeoutMs: 500,
      stderr: (text) => {
        mutePid = Number(text);
      },
    });
    opened.push(mute);
    const silent = await mute.connect().catch((e: unknown) => e);
    expect(silent).toBeInstanceOf(McpConnectionError);
    expect((silent as Error).message).toContain("no answer to 'initialize' within 500 ms");
    expect(mutePid).toBeGreaterThan(0);
    expect(alive(mutePid)).toBe(false);

    // In a reply, the failure ends the reply with an error that names the server.
    const model = new ScriptedModel([textChunks('unreachable')]);
    const agent = new Agent({
      name: 'broken',
      model,
      plugins: [mcpTools({ servers: { tools: dying } })],
      logger: { warn() {}, error() {} },
    });
    const msg = await agent.reply('hello');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.message).toContain("MCP server 'tools'");
    expect(model.callCount).toBe(0);
  }, 60_000);

  it('close() ends the server process, and the client refuses further calls', async () => {
    const tools = client();
    const pid = await serverPid(tools);
    expect(tools.connected).toBe(true);
    await tools.close();
    expect(tools.connected).toBe(false);
    await waitFor(() => !alive(pid));
    await expect(tools.callTool('pid')).rejects.toBeInstanceOf(McpConnectionError);

    let disposedPid = 0;
    {
      await using scoped = new McpClient('scoped', stdioToolsServer());
      disposedPid = await serverPid(scoped);
    }
    await waitFor(() => !alive(disposedPid));
  }, 60_000);

  it('the plugin closes the clients it made, not the ones it was given', async () => {
    const given = client();
    const plugin = mcpTools({ servers: { tools: given, own: stdioToolsServer() } });
    await plugin.connect();
    const own = plugin.clients.get('own')!;
    const ownPid = await serverPid(own);
    await plugin.close();
    await waitFor(() => !alive(ownPid));
    expect(given.connected).toBe(true);
  }, 60_000);
});
