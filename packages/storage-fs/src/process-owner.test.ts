import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SELF, pidGone, processGone } from './process-owner';

describe('processGone', () => {
  it('knows this process is alive, and a finished one is gone', async () => {
    expect(processGone(SELF)).toBe(false);
    const child = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => child.on('exit', r));
    expect(processGone({ ...SELF, pid: child.pid as number })).toBe(true);
  });

  it('tells a reused pid by its start time (where /proc has it)', () => {
    if (SELF.start === '') return; // no /proc: liveness falls back to the pid alone
    expect(pidGone(SELF.pid, `${SELF.start}1`)).toBe(true);
    expect(pidGone(SELF.pid, '')).toBe(false);
  });

  it('never calls a process of another host gone, nor one it cannot name', () => {
    expect(processGone({ host: `${SELF.host}-elsewhere`, pid: 999_999_999, start: '' })).toBe(false);
    for (const pid of [0, -1, 1.5]) expect(pidGone(pid, '')).toBe(false);
  });
});
