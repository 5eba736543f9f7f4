import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'test-redis', include: ['src/**/*.test.ts'] },
});
