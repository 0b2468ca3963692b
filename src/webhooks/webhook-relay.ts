/**
 * The outbox relay: a small background service (start/stop, and runOnce() for tests) that
 * publishes outbox rows into per-endpoint webhook messages (Store.relayOutbox) and prunes what
 * is no longer needed. It keeps no cursor: every pass asks for rows still unpublished, so a row
 * whose transaction committed after higher ids were published is picked up by the next pass
 * (PostgreSQL hands out sequence values before commit, so ids do not follow commit order).
 */
import type { Clock } from '../clock.js';
import { LoopService, type LoopSettings } from '../periodic/loop-service.js';
import type { Store } from '../store/store.js';

export interface WebhookRelayOptions extends LoopSettings {
  store: Store;
  clock: Clock;
  /** Published outbox rows are kept this long (for inspection), then deleted. Default 24 h. */
  outboxRetentionMs?: number;
  /** Delivered messages are kept this long (the endpoint's `delivered` count), then deleted. Default 7 days. */
  messageRetentionMs?: number;
}

export interface RelayPass {
  published: number;
  messages: number;
  prunedOutbox: number;
  prunedMessages: number;
}

/** The outbox relay service; see the file comment. */
export class WebhookRelay extends LoopService {
  constructor(private readonly opts: WebhookRelayOptions) {
    // 500 outbox rows per transaction: one commit per batch, short enough not to hold the SQLite writer.
    super({ ...opts, what: 'webhook relay', defaultBatchSize: 500 });
  }

  /** Publishes every row unpublished at this instant, batch by batch, then prunes one batch of history. */
  override async runOnce(): Promise<RelayPass> {
    const pass: RelayPass = { published: 0, messages: 0, prunedOutbox: 0, prunedMessages: 0 };
    for (;;) {
      const r = await this.opts.store.webhooks.relayOutbox({ now: this.opts.clock.now(), limit: this.passBatchSize });
      pass.published += r.published;
      pass.messages += r.messages;
      if (r.published < this.passBatchSize) break;
    }
    const now = this.opts.clock.now();
    const pruned = await this.opts.store.webhooks.pruneWebhookHistory({
      outboxBefore: now - (this.opts.outboxRetentionMs ?? 24 * 3_600_000),
      messagesBefore: now - (this.opts.messageRetentionMs ?? 7 * 24 * 3_600_000),
      limit: this.passBatchSize,
    });
    pass.prunedOutbox = pruned.outbox;
    pass.prunedMessages = pruned.messages;
    return pass;
  }
}
