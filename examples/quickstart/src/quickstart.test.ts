import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getBlocks, type AgentState, type Msg } from '@agentkit/core';
import { FileSessionStore } from '@agentkit/storage-fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_KEY } from './demo-paths';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs `src/main.ts` as `npm run demo` would (no API key, no Redis, no stdin), from the sources. */
function runDemo(demoDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTKIT_DEMO_DIR: demoDir, NO_COLOR: '1' };
  for (const key of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'REDIS_URL',
    'AUTO_APPROVE',
    'FORCE_COLOR',
  ])
    delete env[key];
  const child = spawn(process.execPath, ['--conditions=@agentkit/source', '--import', 'tsx', 'src/main.ts'], {
    cwd: exampleDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function loadSession(demoDir: string) {
  const store = new FileSessionStore({ directory: join(demoDir, 'sessions') });
  const record = await store.getSession(SESSION_KEY.userId, SESSION_KEY.agentId, SESSION_KEY.sessionId);
  expect(record).not.toBeNull();
  return record!;
}

const replyMsg = (state: AgentState): Msg => state.context.find((m) => m.id === state.reply?.id)!;
const allBlocks = (state: AgentState) => state.context.flatMap((m) => m.content);

describe('the quickstart demo', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('should pause for the write, resume in a second process, run the confirmed tool once and save the finished reply', async () => {
    const demoDir = await mkdtemp(join(tmpdir(), 'agentkit-quickstart-'));
    dirs.push(demoDir);
    const { code, stdout, stderr } = await runDemo(demoDir);
    expect(stderr).not.toMatch(/error|warning/i);
    expect(code).toBe(0);

    // What the terminal shows, in order.
    const expected = [
      'no API key set: using the scripted model',
      `sessions: files in ${join(demoDir, 'sessions')}`,
      'ⓘ hint: <current-time>',
      '→ TaskCreate',
      '→ list_files {"path":"."}',
      '← list_files ✓ notes.md',
      '→ read_file {"path":"notes.md"}',
      '← read_file ✓ # Team sync, Monday',
      '⏸ write_file needs your confirmation',
      // runSession created the session (version 1), checkpointed the input (2) and saved the paused reply (3).
      "saved session 'demo-session' (version 3) — the reply is paused",
      'process 2',
      "loaded:   session 'demo-session' (version 3",
      'auto-approved (stdin is not a TTY)',
      '← write_file ✓ Wrote',
      '■ reply completed',
      // Checkpoints before and after write_file (3, 4), then the finished reply (5).
      "saved session 'demo-session' (version 6)",
    ];
    let at = 0;
    for (const text of expected) {
      const found = stdout.indexOf(text, at);
      expect(found, `"${text}" after position ${at} in:\n${stdout}`).toBeGreaterThanOrEqual(0);
      at = found + text.length;
    }
    const pids = [...stdout.matchAll(/process (\d) \(pid (\d+)\)/g)].map((m) => [m[1], m[2]]);
    expect(pids.map(([n]) => n)).toEqual(['1', '2']);
    expect(pids[0]![1]).not.toBe(pids[1]![1]);
    expect(stdout.match(/← write_file/g)).toHaveLength(1);

    // The saved session: the reply finished, the confirmed tool ran exactly once, the task is done.
    const record = await loadSession(demoDir);
    expect(record.version).toBe(6);
    const msg = replyMsg(record.state);
    expect(msg.finishedReason).toBe('completed');
    expect(msg.finishedAt).not.toBeNull();
    expect(msg.usage?.inputTokens).toBeGreaterThan(0);
    const writes = allBlocks(record.state).filter((b) => b.type === 'tool_result' && b.name === 'write_file');
    expect(writes).toEqual([
      expect.objectContaining({
        state: 'success',
        metadata: { path: 'summary.md', bytes: expect.any(Number) },
      }),
    ]);
    expect(getBlocks(msg, 'tool_call').every((c) => c.state === 'finished')).toBe(true);
    expect(getBlocks(msg, 'text').at(-1)?.text).toMatch(/^Done\. summary\.md now holds 4 points/);
    expect(record.state.plugins['@agentkit/tasks']).toMatchObject({
      tasks: [{ id: '1', status: 'completed' }],
    });

    const summary = await readFile(join(demoDir, 'sandbox', 'summary.md'), 'utf8');
    expect(summary).toBe(
      [
        '# Summary of notes.md',
        '',
        '- The release moves to Thursday',
        '- Ana takes over the on-call rotation from Ben next week',
        '- Search is slow on large projects (customer feedback)',
        '- The office is closed on Friday',
        '',
      ].join('\n'),
    );
  });

  it('should start from a fresh session and sandbox on every run', async () => {
    const demoDir = await mkdtemp(join(tmpdir(), 'agentkit-quickstart-'));
    dirs.push(demoDir);
    expect((await runDemo(demoDir)).code).toBe(0);
    const second = await runDemo(demoDir);
    expect(second.code).toBe(0);
    const record = await loadSession(demoDir);
    expect(record.version).toBe(6);
    expect(record.state.context.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(
      allBlocks(record.state).filter((b) => b.type === 'tool_result' && b.name === 'write_file'),
    ).toHaveLength(1);
  });
});
