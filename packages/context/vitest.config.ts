import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: {
    name: 'context',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
