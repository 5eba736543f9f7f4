import { defineConfig } from 'vitest/config';

// One root config; each package is a project so `vitest --project core` works.
export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*', 'integration', 'test-utils/*'],
  },
});
