import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    store: 'src/entries/store.ts',
    model: 'src/entries/model.ts',
    'testing/index': 'src/testing/index.ts',
  },
  format: ['esm'],
  target: 'node22',
  dts: true,
  clean: true,
});
