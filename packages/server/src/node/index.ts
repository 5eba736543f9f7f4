export { serveAgentServer, type ServeOptions, type ServedAgentServer } from './serve-agent-server';
