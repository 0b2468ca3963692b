/**
 * Group commit for the PostgreSQL driver: concurrent calls (API key look-ups, idempotency
 * reservations, notification inserts) coalesced into one statement per group.
 */

/** A settled call: its value or its error. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Waits for a promise and says how it settled, never rejecting. */
export function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  return p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/**
 * Coalesces concurrent calls into groups without adding a wait under light load: a call is sent
 * on the next turn of the event loop with whatever else arrived in that turn, and while
 * `maxInFlight` groups are out, new calls queue and leave together as the next group (at most
 * `maxGroup` each) when one returns. `run` answers each member of a group in order.
 */
export class Coalescer<T, R> {
  private queue: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: T[]) => Promise<Array<Settled<R>>>,
    private readonly maxInFlight: number,
    private readonly maxGroup: number,
  ) {}

  /** Queues one call; resolves (or rejects) with its member's answer once its group has run. */
  push(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.inFlight < this.maxInFlight) this.send(this.queue.splice(0, this.maxGroup));
    });
  }

  private send(group: Array<{ item: T; resolve: (r: R) => void; reject: (e: unknown) => void }>): void {
    this.inFlight++;
    this.run(group.map((g) => g.item))
      .then(
        (results) => results.forEach((r, i) => (r.ok ? group[i]!.resolve(r.value) : group[i]!.reject(r.error))),
        (err: unknown) => group.forEach((g) => g.reject(err)),
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
  }
}
