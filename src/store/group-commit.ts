/**
 * Group commit: callers that write while a write of the same kind is in flight share the next
 * one. The first caller at rest writes alone and at once (no timer, no added latency when the
 * path is quiet); under load, everything that arrived during one write goes in the next, so a
 * burst of N callers costs a few statements instead of N. Each caller gets its own slice of the
 * results, or the error of the write its items were in: nothing is reported written that was not
 * committed.
 */

interface Waiting<T, R> {
  items: readonly T[];
  resolve: (results: R[]) => void;
  reject: (err: unknown) => void;
}

export class GroupCommit<T, R> {
  private readonly waiting: Waiting<T, R>[] = [];
  private writing = false;

  /**
   * @param write writes a batch and returns one result per item, in order
   * @param maxItems the most items one write takes (a single caller's larger batch goes alone)
   */
  constructor(
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxItems = 500,
  ) {}

  /** Writes `items` with whatever else is waiting; resolves with their results once committed. */
  run(items: readonly T[]): Promise<R[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const group: Waiting<T, R>[] = [];
        let count = 0;
        while (this.waiting.length > 0 && (group.length === 0 || count + this.waiting[0]!.items.length <= this.maxItems)) {
          const next = this.waiting.shift()!;
          group.push(next);
          count += next.items.length;
        }
        try {
          const results = await this.write(group.flatMap((g) => g.items));
          let at = 0;
          for (const g of group) {
            g.resolve(results.slice(at, at + g.items.length));
            at += g.items.length;
          }
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
