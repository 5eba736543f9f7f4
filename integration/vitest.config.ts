import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'integration', include: ['src/**/*.test.ts'], testTimeout: 120_000 },
});
