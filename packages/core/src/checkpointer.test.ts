import { describe, expect, it } from 'vitest';
import { Checkpointer } from './checkpointer';
import { sleep } from './sleep';

describe('Checkpointer', () => {
  it('never runs two saves at once, and shares a save among requests made before it begins', async () => {
    let running = 0;
    let maxRunning = 0;
    let saves = 0;
    const cp = new Checkpointer(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await sleep(20);
      saves++;
      running--;
    });
    const first = cp.save();
    await sleep(5); // the first save is under way
    const queued = [cp.save(), cp.save(), cp.save()]; // wait for the first, then share one save
    await Promise.all([first, ...queued]);
    expect(maxRunning).toBe(1);
    expect(saves).toBe(2);
  });

  it('rejects an awaited save that fails, and keeps saving afterwards', async () => {
    let fail = true;
    const cp = new Checkpointer(async () => {
      if (fail) throw new Error('store down');
    });
    await expect(cp.save()).rejects.toThrow('store down');
    fail = false;
    await expect(cp.save()).resolves.toBeUndefined();
  });

  it('settle waits for unawaited saves, including ones started while waiting, and never rejects', async () => {
    const done: number[] = [];
    let n = 0;
    const cp = new Checkpointer(async () => {
      const mine = ++n;
      await sleep(15);
      if (mine === 1) {
        cp.saveSoon(); // a save requested while the first runs
        throw new Error('first fails');
      }
      done.push(mine);
    });
    cp.saveSoon();
    await cp.settle();
    expect(done).toEqual([2]);
  });
});
