import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example prints the reply’s span tree and both metrics through the console exporters', async () => {
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    await writeFile(file, code as string);
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@agentkit/source', '--import', 'tsx', file],
        {
          cwd: packageDir,
        },
      );
      const spanNames = [...stdout.matchAll(/^ {2}name: '([^']+)',$/gm)].map((m) => m[1]);
      expect(spanNames).toEqual([
        'chat gpt-5-mini',
        'execute_tool add',
        'chat gpt-5-mini',
        'invoke_agent calc',
      ]);
      expect(stdout).toContain("'gen_ai.usage.input_tokens': 123");
      expect(stdout).toContain("name: 'gen_ai.client.token.usage'");
      expect(stdout).toContain("name: 'gen_ai.client.operation.duration'");
    } finally {
      await rm(file, { force: true });
    }
  }, 30_000);
});
