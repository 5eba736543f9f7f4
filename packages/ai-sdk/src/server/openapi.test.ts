import { afterEach, describe, expect, it } from 'vitest';
import { startServer } from '../../test/helpers';

let served: Awaited<ReturnType<typeof startServer>> | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('GET /openapi.json', () => {
  it('documents the chat routes', async () => {
    served = await startServer();
    const response = await fetch(`${served.url}/openapi.json`, {
      headers: { Authorization: 'Bearer alice' },
    });
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { paths: Record<string, { post?: { requestBody?: unknown } }> };
    const route = doc.paths['/agents/{agentId}/chat']?.post;
    expect(route).toBeDefined();
    expect(JSON.stringify(route!.requestBody)).toMatch(/messages/);
    expect(doc.paths['/agents/{agentId}/chat/{sessionId}/stream']).toBeDefined();
  });
});
