/**
 * Builds the operator alerter from configuration (the worker role, and `herald alerts test`):
 * its targets (e-mail and SMS through the given adapters of Herald's own accounts, webhooks
 * through a policy-checked HTTP client with `alerts.allow_networks`), its rules and timing, and
 * its signals read from the store.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { ConfigError, type HeraldConfig } from '../config/config.js';
import { alertAccounts, alertsEnabled, alertWebhookSecret } from '../config/alerts-config.js';
import { ProviderAlertTarget, WebhookAlertTarget, type AlertTarget } from '../observability/alert-delivery.js';
import { storeAlertSignals } from '../observability/alert-signals.js';
import { Alerter } from '../observability/alerter.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';
import type { Store } from '../store/store.js';
import { AddressPolicy } from '../webhooks/address-policy.js';
import { WebhookHttpClient } from '../webhooks/webhook-http.js';

export interface AlerterWiring {
  config: HeraldConfig;
  /** The accounts in use (with none configured, `herald start`'s sandbox accounts). */
  accounts: readonly ProviderAccountConfig[];
  /** Adapters by account id; the alerter sends e-mail and SMS through these. */
  adapters: ReadonlyMap<string, ProviderAdapter>;
  store: Store;
  clock: Clock;
  logger: Logger;
  registry?: Registry;
  env?: NodeJS.ProcessEnv;
}

/** The alerter and what it holds open; null when no alert target is configured. */
export function createAlerter(w: AlerterWiring): { alerter: Alerter; targets: AlertTarget[]; close(): void } | null {
  const a = w.config.alerts;
  if (!alertsEnabled(a)) return null;
  const byId = new Map(w.accounts.map((x) => [x.id, x] as const));
  const targets: AlertTarget[] = [];
  for (const channel of ['email', 'sms'] as const) {
    const t = a[channel];
    if (!t) continue;
    const preference = alertAccounts(t, channel, w.accounts).filter((id) => byId.get(id)?.channel === channel);
    // Checked again here: with no accounts configured, the sandbox's were not known at load.
    if (preference.length === 0)
      throw new ConfigError(`alerts.${channel} needs an ${channel} provider account to send through; none is configured`, `alerts.${channel}`);
    for (const to of t.to) targets.push(new ProviderAlertTarget(channel, to, preference, byId, w.adapters));
  }
  const http = new WebhookHttpClient({ policy: new AddressPolicy({ allowNetworks: a.allow_networks }), timeoutMs: a.timeout_ms, userAgent: 'Herald-Alerts/1' });
  a.webhooks.forEach((hook, i) => {
    const secret = alertWebhookSecret(hook, w.env);
    if (secret === null) throw new ConfigError(`alerts.webhooks[${i}] has no signing secret (secret_env unset?)`, `alerts.webhooks[${i}].secret_env`);
    targets.push(new WebhookAlertTarget(hook.url, secret, http));
  });
  const alerter = new Alerter({
    store: w.store,
    clock: w.clock,
    logger: w.logger,
    signals: storeAlertSignals({
      store: w.store,
      accounts: w.accounts.map((x) => x.id),
      reviewUnknownAfterMs: 15 * 60_000,
      deviceAwayAfterSeconds: w.config.devices.away_after_seconds,
      acceptedProgressAfterMs: w.config.metrics.accepted_progress_after_s * 1000,
    }),
    targets,
    rules: a.rules,
    policy: {
      resolveHoldMs: a.resolve_hold_seconds * 1000,
      minGapMs: a.min_gap_seconds * 1000,
      reminderMs: a.reminder_seconds === null ? null : a.reminder_seconds * 1000,
    },
    intervalMs: a.interval_seconds * 1000,
    historyRetentionMs: a.history_days * 86_400_000,
    ...(w.registry ? { registry: w.registry } : {}),
  });
  return { alerter, targets, close: () => http.close() };
}
