/**
 * Group commit (src/store/group-commit.ts): the first caller at rest writes alone and at once;
 * callers that arrive while a write is in flight share the next one, each getting its own
 * results in order; a failed write fails only the callers whose items were in it; no write takes
 * more than its item limit unless one caller's batch alone is larger.
 */
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';

/** A write the test releases by hand, recording each batch it was given. */
function heldWrites() {
  const batches: string[][] = [];
  const releases: Array<(fail?: Error) => void> = [];
  const write = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      releases.push((fail) => (fail ? reject(fail) : resolve(items.map((i) => i.toUpperCase()))));
    });
  const release = async (fail?: Error) => {
    await until(() => releases.length > 0);
    releases.shift()!(fail);
  };
  return { batches, write, release };
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !ok(); i++) await new Promise((r) => setImmediate(r));
  if (!ok()) throw new Error('condition never held');
}

describe('GroupCommit', () => {
  it('writes the first caller alone and at once, then everything that waited in one write', async () => {
    const w = heldWrites();
    const group = new GroupCommit(w.write);
    const first = group.run(['a']);
    expect(w.batches).toEqual([['a']]);
    const second = group.run(['b', 'c']);
    const third = group.run(['d']);
    expect(w.batches).toHaveLength(1);
    await w.release();
    expect(await first).toEqual(['A']);
    await w.release();
    expect(w.batches).toEqual([['a'], ['b', 'c', 'd']]);
    expect(await second).toEqual(['B', 'C']);
    expect(await third).toEqual(['D']);
    expect(await group.run([])).toEqual([]);
  });

  it('fails only the callers of the write that failed, and goes on with the next', async () => {
    const w = heldWrites();
    const group = new GroupCommit(w.write);
    const first = group.run(['a']);
    const second = group.run(['b']);
    const third = group.run(['c']);
    await w.release();
    await w.release(new Error('disk full'));
    await expect(second).rejects.toThrow('disk full');
    await expect(third).rejects.toThrow('disk full');
    expect(await first).toEqual(['A']);
    const fourth = group.run(['d']);
    await w.release();
    expect(await fourth).toEqual(['D']);
  });

  it('keeps each write within its item limit, but never splits one caller', async () => {
    const w = heldWrites();
    const group = new GroupCommit(w.write, 3);
    const calls = [group.run(['a']), group.run(['b', 'c']), group.run(['d', 'e']), group.run(['f', 'g', 'h', 'i']), group.run(['j'])];
    for (let i = 0; i < 5; i++) await w.release();
    expect(w.batches).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f', 'g', 'h', 'i'], ['j']]);
    expect(await Promise.all(calls)).toEqual([['A'], ['B', 'C'], ['D', 'E'], ['F', 'G', 'H', 'I'], ['J']]);
  });
});
