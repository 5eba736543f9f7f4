import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'connection/index': 'src/connection/index.ts' },
  format: ['esm'],
  target: 'node22',
  dts: true,
  clean: true,
});
