// An agentkit agent served over MCP on stdio, run as a child process: `node --import tsx agent-stdio-server.ts`.
// The scripted model answers with how many user messages it has seen, so a test can tell sessions apart.
import { Agent, InMemorySessionStore } from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';
import { AgentMcpServer } from '../../src/index';

const store = new InMemorySessionStore();
const server = new AgentMcpServer({
  store,
  agentId: 'counter',
  createAgent: ({ state }) =>
    new Agent({
      name: 'counter',
      state,
      model: new ScriptedModel([
        (request) =>
          textChunks(
            `pid ${process.pid}: message ${request.messages.filter((m) => m.role === 'user').length}`,
          ),
      ]),
    }),
});
await server.serveStdio();
