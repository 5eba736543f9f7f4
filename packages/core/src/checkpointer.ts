/**
 * Runs a reply's checkpoints one at a time: a save never overlaps another (the later one would race the
 * earlier to the store), and requests made while a save waits to begin share it.
 */
export class Checkpointer {
  /** The latest save, begun or waiting to begin. */
  private latest: Promise<void> | undefined;
  /** A save that has not begun yet: requests made now are covered by it. */
  private waiting: Promise<void> | undefined;

  constructor(private readonly saveState: () => Promise<void>) {}

  /** Saves the state as it is when the save begins (after any save in flight); rejects when it fails. */
  save(): Promise<void> {
    if (this.waiting) return this.waiting;
    const run = (this.latest ?? Promise.resolve())
      .catch(() => {})
      .then(() => {
        // Begun: whatever changes from here on needs another save.
        if (this.waiting === run) this.waiting = undefined;
        return this.saveState();
      });
    this.waiting = run;
    this.latest = run;
    return run;
  }

  /** Starts a save without waiting for it (a failure surfaces only through later saves). */
  saveSoon(): void {
    this.save().catch(() => {});
  }

  /** Waits until no save is in flight; never rejects. Call it before saving the state elsewhere. */
  async settle(): Promise<void> {
    for (let seen = this.latest; seen; seen = this.latest === seen ? undefined : this.latest)
      await seen.catch(() => {});
  }
}
