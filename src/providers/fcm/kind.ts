/** The fcm provider kind: push through Firebase Cloud Messaging's HTTP v1 API (docs/providers/fcm.md). */
import { settle } from '../../schema/setting.js';
import type { ProviderKind } from '../kinds.js';
import { createFcmAdapter } from './adapter.js';
import { fcmDoctor } from './doctor.js';
import { FCM_API_URL, fcmProblems, fcmSettingsSchema, readServiceAccount } from './settings.js';

export const fcmKind: ProviderKind = {
  kind: 'fcm',
  channels: ['push'],
  // A push subscription goes to an account of a kind that serves its push service.
  pushTargets: ['fcm'],
  summary: 'Firebase Cloud Messaging HTTP v1 (service-account OAuth 2, collapse keys, no look-up, no callbacks)',
  defaults: {
    // FCM publishes no timeout; 10 s is Herald's, and a timeout is unknown, never failed.
    timeout_ms: 10_000,
    // "The default quota of 600k messages per minute" per project, over minutes "not aligned to the
    // clock" (https://firebase.google.com/docs/cloud-messaging/throttling-and-quotas). 9,000/s with a
    // burst of 1,000 sends at most 541,000 in any 60 s: under the quota, with room for the project's
    // other senders. Per device FCM allows 240/min and 5,000/h on Android; those 429s are per
    // destination and retry that delivery alone.
    rate_per_second: 9_000,
    burst: 1_000,
    // FCM has no idempotency key and no look-up, but every attempt of a delivery carries the same
    // collapse identity (android collapse_key and notification tag, apns-collapse-id, Web Push
    // Topic and tag): a resend of a notification message replaces the first on the device
    // instead of adding a second. That is what dedupes_by_key declares here, and only for
    // notification messages: settings.data_only turns it off (docs/providers/fcm.md, "Ambiguity").
    ambiguity_policy: 'resend_same_key',
    capabilities: { lookup: false, dedupes_by_key: true },
  },
  settingsSchema: fcmSettingsSchema,
  check: fcmProblems,
  createAdapter: (account) => createFcmAdapter(account),
  // FCM has no per-message callbacks (only aggregate delivery data, in BigQuery and the Data API).
  createCallbackVerifier: () => null,
  describe(account) {
    const read = readServiceAccount(account);
    const s = settle(fcmSettingsSchema, account.settings);
    return {
      base_url: account.base_url ?? FCM_API_URL,
      project_id: read.ok ? read.value.projectId : s.project_id,
      // The account's e-mail is an identifier, not a secret: it says which key is in use.
      client_email: read.ok ? read.value.clientEmail : null,
      data_only: s.data_only,
    };
  },
  doctor: fcmDoctor,
};
