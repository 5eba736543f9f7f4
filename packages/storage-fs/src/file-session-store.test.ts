import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionStoreConformanceCases } from '@agentkit/core/testing';
import { describe, it } from 'vitest';
import { FileSessionStore } from './file-session-store';

describe('FileSessionStore conformance', () => {
  const factory = async () => {
    const directory = await mkdtemp(join(tmpdir(), 'agentkit-fs-'));
    return {
      store: new FileSessionStore({ directory }),
      cleanup: () => rm(directory, { recursive: true, force: true }),
    };
  };
  for (const c of sessionStoreConformanceCases(factory)) it(c.name, c.run);
});
