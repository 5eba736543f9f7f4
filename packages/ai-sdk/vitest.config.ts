import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  // Vite applies `resolve.conditions` to the client environment only; tests run in the SSR one.
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: { name: 'ai-sdk', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
