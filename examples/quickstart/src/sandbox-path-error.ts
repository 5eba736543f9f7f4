import { AgentkitError } from '@agentkit/core';

/** A tool was asked for a path outside its sandbox folder (absolute, `..`, or through a symlink). */
export class SandboxPathError extends AgentkitError {
  /** The path the model asked for. */
  readonly path: string;

  constructor(path: string, reason: string) {
    super(
      'SANDBOX_PATH',
      `The path '${path}' ${reason}. Use a path relative to the sandbox folder, e.g. 'notes.md'.`,
    );
    this.path = path;
  }
}
