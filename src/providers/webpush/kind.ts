/** The webpush provider kind: push to browsers through their push services, RFC 8030 + 8291 + 8292 (docs/providers/webpush.md). */
import { settle } from '../../schema/setting.js';
import type { ProviderKind } from '../kinds.js';
import { createWebPushAdapter } from './adapter.js';
import { webPushDoctor } from './doctor.js';
import { webPushProblems, webPushSettingsSchema } from './settings.js';

export const webPushKind: ProviderKind = {
  kind: 'webpush',
  channels: ['push'],
  // A push subscription goes to an account of a kind that serves its push service.
  pushTargets: ['webpush'],
  summary: 'Web Push to browsers (RFC 8030 push services, aes128gcm payloads, VAPID; Topic, no look-up, no callbacks)',
  defaults: {
    // No push service publishes a timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // Each subscription names its own push service, each with its own unpublished limits; their 429s
    // are per subscription (RFC 8030 §8.4) and wait for that delivery alone. Herald's generic 100/s.
    rate_per_second: 100,
    burst: 100,
    // No idempotency key and no look-up, but every attempt carries the same Topic (a push service
    // replaces a message with the same Topic it still holds, RFC 8030 §5.4) and the same payload
    // `tag` (a service worker that shows it with that tag replaces the shown notification). That is
    // what dedupes_by_key declares; settings.data_only turns it off (docs/providers/webpush.md).
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
  },
  settingsSchema: webPushSettingsSchema,
  check: webPushProblems,
  createAdapter: (account) => createWebPushAdapter(account),
  // RFC 8030's push message receipts (§5.1) are optional, and browsers' push services do not offer them.
  createCallbackVerifier: () => null,
  describe(account) {
    const s = settle(webPushSettingsSchema, account.settings);
    return {
      // The public key and subject are public by design (pages subscribe with the key); the private key never shows.
      vapid_subject: s.vapid_subject,
      vapid_public_key: s.vapid_public_key,
      data_only: s.data_only,
      ...(account.base_url === undefined ? {} : { base_url: account.base_url }),
    };
  },
  doctor: webPushDoctor,
};
