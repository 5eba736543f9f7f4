import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlocks, runExample, typeCheckBlocks } from '@agentkit/test-fixtures/readme';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example serves the AG-UI route and HttpAgent runs the agent', async () => {
    const [example] = await readmeBlocks(packageDir);
    expect(await runExample(packageDir, example!)).toBe('Hello from agentkit!\n');
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    expect(await typeCheckBlocks(packageDir, await readmeBlocks(packageDir))).toBe('');
  }, 150_000);
});
