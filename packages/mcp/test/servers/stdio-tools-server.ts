// The tools server over stdio, run as a child process: `node --import tsx stdio-tools-server.ts`.
// PAGE_SIZE pages tools/list; FAIL_AT_START makes it die before the handshake, as a misconfigured server does.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createToolsServer } from './tools-server';

if (process.env.FAIL_AT_START) {
  process.stderr.write(`fatal: ${process.env.FAIL_AT_START}\n`);
  process.exit(3);
}
const { server } = createToolsServer({ pageSize: Number(process.env.PAGE_SIZE ?? 0) });
await server.connect(new StdioServerTransport());
