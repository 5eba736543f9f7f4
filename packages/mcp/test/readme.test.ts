import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageDir } from './helpers';

const exec = promisify(execFile);

async function readmeBlocks(): Promise<string[]> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('README', () => {
  it('the example runs: an agent asks an agent served over MCP, and the process exits', async () => {
    const [example] = await readmeBlocks();
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    await writeFile(file, example!);
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@agentkit/source', '--import', 'tsx', file],
        {
          cwd: packageDir,
          timeout: 60_000,
        },
      );
      expect(stdout).toBe('The geographer says: Paris.\n');
    } finally {
      await rm(file, { force: true });
    }
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    expect(existsSync(join(packageDir, 'dist', 'index.d.ts')), 'build the packages first (pnpm build)').toBe(
      true,
    );
    const blocks = await readmeBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const dir = join(packageDir, `.readme-check-${process.pid}`);
    await mkdir(dir, { recursive: true });
    try {
      await Promise.all(
        blocks.map((code, index) => writeFile(join(dir, `block-${index}.ts`), `${code}\nexport {};\n`)),
      );
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2023',
            lib: ['ESNext', 'DOM'],
            module: 'nodenext',
            moduleResolution: 'nodenext',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
          },
          include: ['*.ts'],
        }),
      );
      const tsc = createRequire(join(packageDir, 'package.json')).resolve('typescript/bin/tsc');
      const result = await exec(process.execPath, [tsc, '-p', dir], { cwd: dir, timeout: 120_000 }).catch(
        (error: { stdout: string }) => error,
      );
      expect(result.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
