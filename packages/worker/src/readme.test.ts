import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { deleteByPrefix, keysByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

async function readmeBlocks(): Promise<string[]> {
  const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
  return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('README', () => {
  it('the example runs a reply through the queue on a worker, and the process exits', async () => {
    const [example] = await readmeBlocks();
    const prefix = uniquePrefix('readme');
    // The same code in a key space of its own.
    const script = example!
      .replace('new RedisStorage({ url })', `new RedisStorage({ url, keyPrefix: '${prefix}:s' })`)
      .replace('new RedisEventLog({ url })', `new RedisEventLog({ url, keyPrefix: '${prefix}:e' })`)
      .replaceAll(
        'connection: { url }',
        `connection: { url }, prefix: '${prefix}:bull', keyPrefix: '${prefix}:q'`,
      );
    expect(script.match(new RegExp(prefix, 'g'))).toHaveLength(6);
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    await writeFile(file, script);
    const admin = new Redis(REDIS_URL);
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@agentkit/source', '--import', 'tsx', file],
        { cwd: packageDir, timeout: 60_000, env: { ...process.env, REDIS_URL } },
      );
      expect(stdout).toBe('"type":"RUN_START" "type":"REPLY_START" "type":"REPLY_END" "type":"RUN_END"\n');
      expect((await keysByPrefix(admin, `${prefix}:bull`)).length).toBeGreaterThan(0);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
      await rm(file, { force: true });
    }
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    expect(existsSync(join(packageDir, 'dist', 'index.d.ts')), 'build the packages first (pnpm build)').toBe(
      true,
    );
    const blocks = await readmeBlocks();
    expect(blocks.length).toBeGreaterThanOrEqual(2);
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
