import { defineProject } from 'vitest/config';

// The test bundles the built packages (as a Worker build would), not their sources: run `pnpm build` first.
export default defineProject({
  test: { name: 'example-edge', include: ['src/**/*.test.ts'], testTimeout: 30_000 },
});
