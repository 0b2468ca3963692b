/**
 * The `android_gateway` provider kind: Android phones running the published SMSGate app
 * (capcom6/android-sms-gateway) in private-server mode with SSE only, registered with this
 * account's private token. docs/phone-gateway.md has the setup and the sources of the defaults.
 */
import type { AccountProblem, ProviderKind } from '../kinds.js';
import { credentialProblem, credentialSource, readCredential } from '../credentials.js';
import { createAndroidGatewayAdapter } from './adapter.js';
import { gatewaySettings, gatewaySettingsSchema } from './settings.js';

/** A registration secret shorter than this is refused at load: it is all that stands between the internet and the account's phones. */
export const MIN_PRIVATE_TOKEN_LENGTH = 16;

export const androidGatewayKind: ProviderKind = {
  kind: 'android_gateway',
  channels: ['sms'],
  summary: 'Android phones running the SMSGate app (private server, SSE only): SMS from your own SIM cards',
  // timeout: the "call" is a store write, not a network request. The account's rate is a ceiling
  // over all its phones; each phone is paced on its own (settings.device_rate_per_minute).
  // Evidence may take hours: a phone that is away reports what it holds when it comes back, and
  // the heartbeat sweep re-offers its unknown messages within 24 h.
  defaults: {
    timeout_ms: 5_000,
    rate_per_second: 10,
    burst: 10,
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: true, dedupes_by_key: false },
    evidence_window_seconds: 86_400,
  },
  settingsSchema: gatewaySettingsSchema,
  check(account, env) {
    const problems: AccountProblem[] = [];
    const missing = credentialProblem(account.id, account.settings, 'private_token', env);
    if (missing) problems.push(missing);
    else if (readCredential(account.id, account.settings, 'private_token', env).length < MIN_PRIVATE_TOKEN_LENGTH) {
      problems.push({ field: 'settings.private_token', message: `must be at least ${MIN_PRIVATE_TOKEN_LENGTH} characters (e.g. openssl rand -hex 24)` });
    }
    if (account.capabilities?.dedupes_by_key === true) {
      problems.push({ field: 'capabilities.dedupes_by_key', message: 'cannot be true for a phone: a new submission is a new message id, which the app sends' });
    }
    return problems;
  },
  createAdapter: (account, context) => createAndroidGatewayAdapter(account, context.deviceGateway),
  // Phones report over the device API, not through signed callbacks.
  createCallbackVerifier: () => null,
  describe(account) {
    const s = gatewaySettings(account);
    const source = credentialSource(account.settings, 'private_token');
    return {
      tenant: s.tenant,
      private_token:
        source === null
          ? 'missing'
          : source.from === 'value'
            ? 'set in the configuration file'
            : source.from === 'env'
              ? `from ${source.name}`
              : `from ${source.path}`,
      device_rate_per_minute: s.deviceRatePerMinute,
      device_burst: s.deviceBurst,
      sim_rate_per_minute: s.simRatePerMinute,
      pull_timeout_seconds: s.pullTimeoutMs / 1000,
      reoffer_after_seconds: s.reofferAfterMs / 1000,
    };
  },
  async doctor(account) {
    // Nothing to ask over the network: the phones call Herald. What can be checked without the
    // store is the registration secret; GET /v1/devices shows each phone's health.
    const problem = credentialProblem(account.id, account.settings, 'private_token', process.env);
    return [
      { name: 'private token readable', ok: problem === null, detail: problem ? problem.message : 'phones can register with it' },
      { name: 'devices', ok: true, detail: 'phones call Herald; see GET /v1/devices for each device\u2019s health' },
    ];
  },
};
