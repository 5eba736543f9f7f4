import { ConfigError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { McpClient } from './mcp-client';
import { mcpTools } from './mcp-tools-plugin';
import type { McpServerConfig } from './server-config';

const fieldOf = (make: () => unknown): string | undefined => {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).field;
  }
  throw new Error('no ConfigError');
};
const bad = (config: unknown) => fieldOf(() => new McpClient('srv', config as McpServerConfig));

describe('server configuration', () => {
  it('names the field that cannot work', () => {
    expect(bad({})).toBe('servers.srv.command');
    expect(bad({ command: 'x', url: 'http://h/mcp' })).toBe('servers.srv.url');
    expect(bad({ command: '' })).toBe('servers.srv.command');
    expect(bad({ command: 'x', args: ['ok', 1] })).toBe('servers.srv.args');
    expect(bad({ command: 'x', env: { A: 1 } })).toBe('servers.srv.env');
    expect(bad({ command: 'x', stderr: 'pipe' })).toBe('servers.srv.stderr');
    expect(bad({ url: 'not a url' })).toBe('servers.srv.url');
    expect(bad({ url: 'ftp://h/mcp' })).toBe('servers.srv.url');
    expect(bad({ url: 'http://h/mcp', headers: { A: 1 } })).toBe('servers.srv.headers');
    expect(bad({ command: 'x', confirm: 'sometimes' })).toBe('servers.srv.confirm');
    expect(bad({ command: 'x', timeoutMs: 0 })).toBe('servers.srv.timeoutMs');
    expect(bad({ command: 'x', connectTimeoutMs: Number.NaN })).toBe('servers.srv.connectTimeoutMs');
    expect(bad({ command: 'x', include: 'add' })).toBe('servers.srv.include');
    expect(bad({ command: 'x', clientInfo: { name: 'a' } })).toBe('servers.srv.clientInfo');
    expect(fieldOf(() => new McpClient('', { command: 'x' }))).toBe('servers');
  });

  it('accepts both kinds and refuses a client filed under another name', () => {
    expect(new McpClient('a', { command: 'x', args: ['y'], env: { K: 'v' } }).name).toBe('a');
    expect(new McpClient('b', { url: new URL('https://h/mcp'), headers: () => ({}) }).name).toBe('b');
    const client = new McpClient('files', { command: 'x' });
    expect(fieldOf(() => mcpTools({ servers: { other: client } }))).toBe('servers.other');
    expect(fieldOf(() => mcpTools({} as never))).toBe('servers');
  });
});
