/** The apns provider kind: push through the Apple Push Notification service, HTTP/2 with token authentication (docs/providers/apns.md). */
import { settle } from '../../schema/setting.js';
import type { ProviderKind } from '../kinds.js';
import { createApnsAdapter } from './adapter.js';
import { apnsDoctor } from './doctor.js';
import { APNS_PRODUCTION_URL, APNS_SANDBOX_URL, apnsProblems, apnsSettingsSchema } from './settings.js';

export const apnsKind: ProviderKind = {
  kind: 'apns',
  channels: ['push'],
  // A push subscription goes to an account of a kind that serves its push service.
  pushTargets: ['apns'],
  summary: 'Apple Push Notification service (HTTP/2, ES256 provider tokens, apns-collapse-id, no look-up, no callbacks)',
  defaults: {
    // Apple publishes no timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // Apple publishes no rate: it throttles per device (429 TooManyRequests, which waits for that
    // delivery only) and keeps one connection busy with many concurrent streams. Herald's generic
    // 100/s until an operator knows better.
    rate_per_second: 100,
    burst: 100,
    // APNs has no idempotency key and no look-up, but every attempt of a delivery carries the same
    // apns-collapse-id, and "multiple notifications with the same collapse identifier are displayed
    // to the user as a single notification": a resend of an alert replaces the first. That is what
    // dedupes_by_key declares, for alert pushes only: settings.data_only turns it off
    // (docs/providers/apns.md, "Ambiguity").
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
  },
  settingsSchema: apnsSettingsSchema,
  check: apnsProblems,
  createAdapter: (account) => createApnsAdapter(account),
  // APNs has no delivery callbacks: 200 means APNs accepted the notification, not that it was shown.
  createCallbackVerifier: () => null,
  describe(account) {
    const s = settle(apnsSettingsSchema, account.settings);
    return {
      hosts:
        account.base_url === undefined
          ? { production: APNS_PRODUCTION_URL, sandbox: APNS_SANDBOX_URL }
          : { production: account.base_url, sandbox: account.base_url },
      // Key id, team id and topic identify the key in use; the key itself is never shown.
      key_id: s.key_id,
      team_id: s.team_id,
      topic: s.topic,
      environment: s.environment,
      data_only: s.data_only,
    };
  },
  doctor: apnsDoctor,
};
