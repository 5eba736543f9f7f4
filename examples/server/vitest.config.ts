import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'example-server', include: ['src/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
});
