import { AgentkitError } from '@agentkit/core';

/**
 * A tool was asked for a path outside its sandbox folder (absolute, `..`, through a symbolic link or a hard
 * link), or for something in it that is not a plain file or folder.
 */
export class SandboxPathError extends AgentkitError {
  /** The path the model asked for. */
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super(
      'SANDBOX_PATH',
      `The path '${path}' ${reason}. Use a path relative to the sandbox folder, e.g. 'notes.md'.`,
      options,
    );
    this.path = path;
  }
}
