import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'worker', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
