import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig } from '../src/index';

export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The stdio tools server as a server configuration (a real child process, TypeScript through tsx). */
export function stdioToolsServer(
  env: Record<string, string> = {},
  options: Partial<McpStdioServerConfig> = {},
): McpStdioServerConfig {
  return {
    command: process.execPath,
    args: ['--import', 'tsx', join(packageDir, 'test', 'servers', 'stdio-tools-server.ts')],
    cwd: packageDir,
    env,
    stderr: 'ignore',
    connectTimeoutMs: 60_000,
    ...options,
  };
}

/** Polls `check` until it returns true (generous: the machine is shared). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error(`waitFor: still false after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
