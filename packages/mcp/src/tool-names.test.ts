import { describe, expect, it } from 'vitest';
import { assignToolNames, sanitizeToolName, TOOL_NAME_PATTERN } from './tool-names';

const request = (server: string, tool: string, prefix = '') => ({ server, tool, prefix });

describe('sanitizeToolName', () => {
  it('replaces characters providers refuse and keeps valid names as they are', () => {
    expect(sanitizeToolName('read_file')).toBe('read_file');
    expect(sanitizeToolName('files.read')).toBe('files_read');
    expect(sanitizeToolName('résumé/créer:v2')).toBe('r_sum__cr_er_v2');
    expect(sanitizeToolName('')).toBe('tool');
  });

  it('cuts long names to 64 characters, keeping names that share a beginning apart', () => {
    const a = sanitizeToolName(`${'x'.repeat(70)}_alpha`, 's');
    const b = sanitizeToolName(`${'x'.repeat(70)}_beta`, 's');
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(TOOL_NAME_PATTERN);
    expect(sanitizeToolName(`${'x'.repeat(70)}_alpha`, 's')).toBe(a);
  });
});

describe('assignToolNames', () => {
  it('keeps valid names, gives the first server a shared name and the next a fingerprinted one', () => {
    const names = assignToolNames([
      request('local', 'add'),
      request('remote', 'add'),
      request('remote', 'pid'),
    ]);
    expect(names[0]).toBe('add');
    expect(names[1]).toMatch(/^add_[0-9a-f]{8}$/);
    expect(names[2]).toBe('pid');
  });

  it('never takes a reserved name (the agent’s own tools)', () => {
    const [name] = assignToolNames([request('s', 'search')], ['search']);
    expect(name).toMatch(/^search_[0-9a-f]{8}$/);
  });

  it('gives the same names whatever order a server lists its tools in', () => {
    const tools = ['files.read', 'files:read', 'files_read', 'a.b', 'write'];
    const forward = assignToolNames(tools.map((t) => request('s', t)));
    const backward = assignToolNames([...tools].reverse().map((t) => request('s', t))).reverse();
    expect(backward).toEqual(forward);
    expect(new Set(forward).size).toBe(tools.length);
    // The tool whose name was valid keeps it; the sanitised ones that clash get fingerprints.
    expect(forward[2]).toBe('files_read');
    for (const name of forward) expect(name).toMatch(TOOL_NAME_PATTERN);
  });

  it('applies the prefix before sanitising and stays within 64 characters', () => {
    const names = assignToolNames([
      request('gh', 'create.issue', 'github_'),
      request('gh', 'y'.repeat(80), 'github_'),
    ]);
    expect(names[0]).toBe('github_create_issue');
    expect(names[1]).toHaveLength(64);
    expect(names[1]!.startsWith('github_yyy')).toBe(true);
  });

  it('stays unique across many clashing names', () => {
    const requests = Array.from({ length: 50 }, (_, i) => request(`server${i % 5}`, 'same'));
    const names = assignToolNames(requests, ['same']);
    expect(new Set(names).size).toBe(50);
    for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
  });
});
