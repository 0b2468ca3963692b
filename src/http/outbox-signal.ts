/**
 * Tells this process's event streams (GET /v1/events/stream) that an outbox row was just
 * committed here (intake, a replay), so they read it at once instead of at their next poll.
 * Other processes' rows are found by the streams' one-second poll of the store.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  /** Calls every listener (after a commit that wrote outbox rows). */
  notify(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Adds a listener; returns its removal. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
