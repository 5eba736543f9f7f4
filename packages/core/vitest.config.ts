import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@agentkit/source'] },
  ssr: { resolve: { conditions: ['@agentkit/source'] } },
  test: {
    name: 'core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Type tests (`*.test-d.ts`, expectTypeOf) pin the plugin contract; tsc checks them with the tests.
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
