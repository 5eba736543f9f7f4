import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'mcp', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
