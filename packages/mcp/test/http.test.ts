import { Agent, getBlocks, type Msg, type ToolResultBlock } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient, McpConnectionError, type McpHttpServerConfig, mcpTools } from '../src/index';
import { stdioToolsServer, waitFor } from './helpers';
import { type HttpToolsServer, startHttpToolsServer } from './servers/http-tools-server';

const results = (msg: Msg): ToolResultBlock[] => getBlocks(msg, 'tool_result');
const outputText = (block: ToolResultBlock | undefined) =>
  (block?.output ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((close) => close()));
});

async function server(options: Parameters<typeof startHttpToolsServer>[0] = {}): Promise<HttpToolsServer> {
  const started = await startHttpToolsServer(options);
  cleanup.push(() => started.close());
  return started;
}

function client(config: McpHttpServerConfig, name = 'remote'): McpClient {
  const made = new McpClient(name, config);
  cleanup.push(() => made.close());
  return made;
}

describe('MCP tools over Streamable HTTP', () => {
  it('sends the headers (a bearer token) with every request; a wrong token is a connection error', async () => {
    const http = await server({ token: 'secret' });
    const remote = client({ url: http.url, headers: { Authorization: 'Bearer secret' } });
    const result = await remote.callTool('add', { a: 1, b: 2 });
    expect(result.content).toEqual([{ type: 'text', text: '3' }]);
    expect(http.authorizations.length).toBeGreaterThanOrEqual(3); // initialize, initialized, the call
    expect(new Set(http.authorizations)).toEqual(new Set(['Bearer secret']));

    let asked = 0;
    const fresh = client({
      url: http.url,
      headers: async () => {
        asked++;
        return { Authorization: 'Bearer secret' };
      },
    });
    await fresh.callTool('add', { a: 2, b: 2 });
    expect(asked).toBeGreaterThanOrEqual(3); // asked for each request, so a token can be renewed

    const wrong = client({ url: http.url, headers: { Authorization: 'Bearer nope' } }, 'locked');
    const error = await wrong.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as McpConnectionError).server).toBe('locked');
    expect((error as Error).message).toContain(`MCP server 'locked' at ${http.url}`);
    expect((error as Error).message).toContain('401');
  }, 60_000);

  it('gives two servers with the same tools distinct names; a prefix chooses them', async () => {
    const http = await server();
    const model = new ScriptedModel([textChunks('one'), textChunks('two')]);
    const local = new McpClient('local', stdioToolsServer());
    cleanup.push(() => local.close());
    const remote = client({ url: http.url });
    const agent = new Agent({ name: 'both', model, plugins: [mcpTools({ servers: { local, remote } })] });
    await agent.reply('hi');
    const names = model.requests[0]!.tools.map((t) => t.name);
    expect(names).toHaveLength(30);
    expect(new Set(names).size).toBe(30);
    expect(names.slice(0, 15)).toContain('add'); // the first server keeps the names
    const remoteAdd = names.slice(15).find((name) => name.startsWith('add_') && name !== 'add_tool');
    expect(remoteAdd).toMatch(/^add_[0-9a-f]{8}$/);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);

    // The same servers always give the same names (a paused reply resumes on another process).
    const again = new Agent({ name: 'both', model, plugins: [mcpTools({ servers: { local, remote } })] });
    await again.reply('hi');
    expect(model.requests[1]!.tools.map((t) => t.name)).toEqual(names);

    const prefixed = new ScriptedModel([[toolCallChunk('web_add', { a: 20, b: 22 })], textChunks('42')]);
    const agent2 = new Agent({
      name: 'prefixed',
      model: prefixed,
      plugins: [
        mcpTools({
          servers: { local, web: { url: http.url, prefix: 'web_', include: ['add', 'files.read'] } },
        }),
      ],
    });
    const msg = await agent2.reply('sum');
    expect(prefixed.requests[0]!.tools.map((t) => t.name).filter((n) => n.startsWith('web_'))).toEqual([
      'web_add',
      'web_files_read',
    ]);
    expect(outputText(results(msg)[0])).toBe('42');
  }, 60_000);

  it('include, exclude and filter choose the tools', async () => {
    const http = await server();
    const names = async (config: Partial<McpHttpServerConfig>) =>
      (await client({ url: http.url, ...config }).tools()).map((t) => t.name);
    expect(await names({ include: ['add', 'pid'] })).toEqual(['add', 'pid']);
    expect(await names({ exclude: ['add', 'pid'] })).not.toEqual(expect.arrayContaining(['add']));
    expect(await names({ filter: (tool) => tool.annotations?.readOnlyHint !== true })).toEqual([
      'slow_write',
      'delete_file',
      'write_note',
      'unannotated',
    ]);
  }, 60_000);

  it('follows pages and refreshes after notifications/tools/list_changed', async () => {
    const http = await server({ pageSize: 5 });
    const remote = client({ url: http.url });
    const model = new ScriptedModel([
      [toolCallChunk('add_tool', { name: 'shout' })],
      textChunks('Added.'),
      [toolCallChunk('shout', { text: 'hey' })],
      textChunks('Done.'),
    ]);
    const agent = new Agent({ name: 'grower', model, plugins: [mcpTools({ servers: { remote } })] });
    const changed = new Promise<void>((resolve) => remote.onToolsChanged(resolve));

    await agent.reply('Add a tool');
    expect(model.requests[0]!.tools).toHaveLength(15);
    expect(http.log.filter((line) => line.startsWith('list'))).toEqual(['list start', 'list 5', 'list 10']);
    // Over HTTP the notification comes on its own stream: wait for it rather than assume it came first.
    await changed;
    const second = await agent.reply('Shout');

    expect(model.requests[2]!.tools.map((t) => t.name)).toContain('shout');
    expect(outputText(results(second)[0])).toBe('echo: hey');
    expect(http.log.filter((line) => line.startsWith('list'))).toHaveLength(7); // 3 pages, then 4
  }, 60_000);

  it('progress notifications keep a long call alive past timeoutMs', async () => {
    const http = await server();
    const remote = client({ url: http.url, timeoutMs: 600 });
    const result = await remote.callTool('progress', { ms: 2_000, everyMs: 100 });
    expect(result.content).toEqual([{ type: 'text', text: 'worked 2000 ms' }]);
  }, 60_000);

  it('close() terminates the HTTP session on the server', async () => {
    const http = await server();
    const remote = client({ url: http.url });
    await remote.connect();
    expect(http.sessions.size).toBe(1);
    await remote.close();
    expect(http.sessions.size).toBe(0);
  }, 60_000);

  it('an interrupted reply cancels the call on the server', async () => {
    const http = await server();
    const remote = client({ url: http.url });
    const model = new ScriptedModel([[toolCallChunk('slow', { ms: 60_000 })], textChunks('never')]);
    const agent = new Agent({ name: 'waiter', model, plugins: [mcpTools({ servers: { remote } })] });
    const controller = new AbortController();

    const replying = agent.reply('Wait', { signal: controller.signal });
    await waitFor(() => http.log.some((line) => line.startsWith('started')));
    controller.abort();
    const msg = await replying;

    expect(msg.finishedReason).toBe('interrupted');
    const requestId = http.log.find((line) => line.startsWith('started'))!.split(' ')[1];
    await waitFor(() => http.log.includes(`cancelled ${requestId}`));
  }, 60_000);

  it('a restarted server is reconnected on the next call, which works; a server that is down gives tool errors', async () => {
    const first = await startHttpToolsServer();
    const { port } = first;
    const remote = client({ url: first.url });
    const model = new ScriptedModel([
      [toolCallChunk('add', { a: 1, b: 1 })],
      textChunks('2'),
      [toolCallChunk('add', { a: 2, b: 2 })],
      textChunks('down'),
      [toolCallChunk('add', { a: 3, b: 3 })],
      textChunks('6'),
    ]);
    const agent = new Agent({ name: 'steady', model, plugins: [mcpTools({ servers: { remote } })] });
    expect(outputText(results(await agent.reply('1+1'))[0])).toBe('2');
    const firstSession = [...first.sessions.keys()][0];

    // Restart: the new process knows nothing of the old session and answers 404 to it.
    await first.close();
    const down = await agent.reply('2+2');
    expect(down.finishedReason).toBe('completed');
    expect(results(down)[0]?.state).toBe('error');
    expect(outputText(results(down)[0])).toContain("MCP server 'remote'");

    const second = await server({ port });
    const back = await agent.reply('3+3');
    expect(results(back)[0]).toMatchObject({ state: 'success' });
    expect(outputText(results(back)[0])).toBe('6');
    expect(second.sessions.size).toBe(1);
    expect([...second.sessions.keys()][0]).not.toBe(firstSession);
  }, 60_000);

  it('a restart between two calls is invisible: the call that meets the lost session is sent again', async () => {
    const first = await startHttpToolsServer();
    const remote = client({ url: first.url });
    const model = new ScriptedModel([
      [toolCallChunk('add', { a: 1, b: 1 })],
      textChunks('2'),
      [toolCallChunk('add', { a: 5, b: 5 })],
      textChunks('10'),
    ]);
    const agent = new Agent({ name: 'steady', model, plugins: [mcpTools({ servers: { remote } })] });
    expect(outputText(results(await agent.reply('1+1'))[0])).toBe('2');
    await first.close();
    const second = await server({ port: first.port });

    const msg = await agent.reply('5+5');
    expect(results(msg)[0]).toMatchObject({ state: 'success' });
    expect(outputText(results(msg)[0])).toBe('10');
    expect(second.sessions.size).toBe(1);
  }, 60_000);

  it('a server that is down when its list must be refreshed keeps its last list, with a warning', async () => {
    const http = await startHttpToolsServer();
    const remote = client({ url: http.url });
    const warnings: string[] = [];
    const model = new ScriptedModel([
      [toolCallChunk('add_tool', { name: 'late' })],
      textChunks('Added.'),
      [toolCallChunk('add', { a: 1, b: 2 })],
      textChunks('Down.'),
    ]);
    const agent = new Agent({
      name: 'stubborn',
      model,
      plugins: [mcpTools({ servers: { remote } })],
      logger: { warn: (message: string) => warnings.push(message), error() {} },
    });
    const changed = new Promise<void>((resolve) => remote.onToolsChanged(resolve));
    await agent.reply('Add a tool');
    await changed;
    await http.close();

    const msg = await agent.reply('Add numbers');
    expect(msg.finishedReason).toBe('completed');
    expect(model.requests[2]!.tools.map((t) => t.name)).toEqual(model.requests[0]!.tools.map((t) => t.name));
    expect(warnings.join('\n')).toContain("the tools of MCP server 'remote' could not be refreshed");
    expect(results(msg)[0]?.state).toBe('error');
  }, 60_000);

  it('a URL where nothing listens gives McpConnectionError naming the server', async () => {
    const http = await startHttpToolsServer();
    await http.close();
    const error = await client({ url: http.url, connectTimeoutMs: 10_000 }, 'nowhere')
      .connect()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectionError);
    expect((error as Error).message).toContain(`MCP server 'nowhere' at ${http.url} could not be reached`);
    expect((error as Error).message).toContain('ECONNREFUSED');
  }, 60_000);
});
