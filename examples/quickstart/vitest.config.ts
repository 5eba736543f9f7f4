import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'example-quickstart', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
