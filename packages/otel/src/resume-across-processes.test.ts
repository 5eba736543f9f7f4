import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { only, type TestSdk, testSdk } from '../test/otel-sdk';
import { pausingAgent } from '../test/pausing-agent';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface ChildSpan {
  name: string;
  traceId: string;
  spanId: string;
  parent: { traceId: string; spanId: string; isRemote?: boolean } | null;
  links: Array<{ traceId: string; spanId: string }>;
  attributes: Record<string, unknown>;
}

/** Resumes the paused state in a fresh Node process and returns the spans it recorded. */
async function resumeInChild(stateFile: string, resume: 'link' | 'parent') {
  const { stdout } = await exec(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      join(packageDir, 'test/resume-child.ts'),
      stateFile,
      resume,
    ],
    { cwd: packageDir },
  );
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  return { spans: lines.slice(0, -1) as ChildSpan[], finishedReason: lines.at(-1).finishedReason };
}

describe('a reply paused in one process and resumed in another', () => {
  let sdk: TestSdk;
  let dir: string;
  let stateFile: string;
  let paused: { traceId: string; spanId: string };

  beforeAll(async () => {
    sdk = testSdk();
    const agent = pausingAgent({ tracerProvider: sdk.tracerProvider });
    expect((await agent.reply('Deploy billing')).finishedReason).toBeNull();
    paused = only(sdk.spans(), 'invoke_agent ops').spanContext();
    dir = await mkdtemp(join(tmpdir(), 'agentkit-otel-'));
    stateFile = join(dir, 'state.json');
    await writeFile(stateFile, JSON.stringify(agent.state));
  });

  afterAll(async () => {
    await sdk.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  it('links the resumed run to the paused run’s span, across the process boundary', async () => {
    const { spans, finishedReason } = await resumeInChild(stateFile, 'link');
    expect(finishedReason).toBe('completed');
    const run = spans.find((s) => s.name === 'invoke_agent ops')!;
    expect(run.links).toEqual([expect.objectContaining({ traceId: paused.traceId, spanId: paused.spanId })]);
    expect(run.parent).toBeNull();
    expect(run.traceId).not.toBe(paused.traceId);
    // The deploy the user confirmed ran in the child, inside the resumed run, then the final answer.
    const deploy = spans.find((s) => s.name === 'execute_tool deploy')!;
    expect(deploy.parent?.spanId).toBe(run.spanId);
    expect(deploy.attributes['agentkit.tool.result_state']).toBe('success');
    expect(spans.find((s) => s.name === 'chat gpt-5-mini')?.parent?.spanId).toBe(run.spanId);
  }, 30_000);

  it("with resume: 'parent', continues the paused run's trace as a child of its span", async () => {
    const { spans } = await resumeInChild(stateFile, 'parent');
    const run = spans.find((s) => s.name === 'invoke_agent ops')!;
    expect(run.traceId).toBe(paused.traceId);
    expect(run.parent).toMatchObject({ traceId: paused.traceId, spanId: paused.spanId, isRemote: true });
    expect(run.links).toEqual([]);
  }, 30_000);
});
