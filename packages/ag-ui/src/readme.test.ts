import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function blocks(): Promise<string[]> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('README', () => {
  it('the example serves the AG-UI route and HttpAgent runs the agent', async () => {
    const [code] = await blocks();
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    await writeFile(file, code!);
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@agentkit/source', '--import', 'tsx', file],
        {
          cwd: packageDir,
        },
      );
      expect(stdout).toBe('Hello from agentkit!\n');
    } finally {
      await rm(file, { force: true });
    }
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    const dir = join(packageDir, `.readme-check-${process.pid}`);
    await mkdir(dir, { recursive: true });
    try {
      const files: string[] = [];
      for (const [i, code] of (await blocks()).entries()) {
        files.push(`block-${i}.ts`);
        await writeFile(join(dir, `block-${i}.ts`), `${code}\nexport {};\n`);
      }
      await writeFile(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2023',
            lib: ['es2023', 'dom'],
            types: ['node'],
            skipLibCheck: true,
            noEmit: true,
          },
          files,
        }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const result = await exec(process.execPath, [tsc, '-p', dir]).catch((e) => e);
      expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
