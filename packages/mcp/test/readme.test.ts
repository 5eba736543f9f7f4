import { readmeBlocks, runExample, typeCheckBlocks } from '@agentkit/test-fixtures/readme';
import { describe, expect, it } from 'vitest';
import { packageDir } from './helpers';

describe('README', () => {
  it('the example runs: an agent asks an agent served over MCP, and the process exits', async () => {
    const [example] = await readmeBlocks(packageDir);
    expect(await runExample(packageDir, example!)).toBe('The geographer says: Paris.\n');
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    const blocks = await readmeBlocks(packageDir);
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(await typeCheckBlocks(packageDir, blocks)).toBe('');
  }, 150_000);
});
