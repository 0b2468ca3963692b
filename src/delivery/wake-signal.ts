/**
 * Wakes idle claim loops when intake commits new work, so a fresh `ready` delivery does not
 * wait out a poll interval. In one process this is an in-memory signal; across processes
 * the Postgres driver will feed it from LISTEN/NOTIFY. Polling stays as the fallback.
 */

export class WakeSignal {
  private waiters = new Map<string, Set<() => void>>();

  /** Wakes every loop waiting on this provider account. */
  notify(providerAccount: string): void {
    const set = this.waiters.get(providerAccount);
    if (!set) return;
    this.waiters.delete(providerAccount);
    for (const w of set) w();
  }

  /** Wakes every waiting loop (shutdown, tests). */
  notifyAll(): void {
    for (const account of [...this.waiters.keys()]) this.notify(account);
  }

  /** Resolves when notified for the account or after `ms`, whichever comes first. */
  wait(providerAccount: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(providerAccount);
      if (!set) {
        set = new Set();
        this.waiters.set(providerAccount, set);
      }
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      set.add(done);
    });
  }
}
