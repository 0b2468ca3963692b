/** The sandbox provider kind: Herald's own fake provider (`herald sandbox`), for trying Herald and for tests. */
import type { ProviderKind } from '../kinds.js';
import { createSandboxAdapter } from './adapter.js';
import { createSandboxCallbackVerifier, resolveCallbackSecrets } from './callbacks.js';
import { sandboxDoctor } from './doctor.js';

export const sandboxKind: ProviderKind = {
  kind: 'sandbox',
  channels: ['email', 'sms', 'push'],
  summary: "Herald's sandbox provider (ledger, faults, look-up, signed callbacks)",
  // The sandbox publishes no guidance of its own: a generous rate (its quota, when set, is the
  // limit under test), a 10 s timeout, and waiting for evidence, which its look-up provides.
  defaults: {
    timeout_ms: 10_000,
    rate_per_second: 100,
    burst: 100,
    ambiguity_policy: 'wait_for_evidence',
    capabilities: { lookup: true, dedupes_by_key: false },
  },
  settingsSchema: null,
  check(account, env) {
    const problems = [];
    if (account.base_url === undefined) problems.push({ field: 'base_url', message: 'is required for a sandbox account (e.g. http://127.0.0.1:8025)' });
    if (account.api_key_env && env[account.api_key_env] === undefined) {
      problems.push({ field: 'api_key_env', message: `names ${account.api_key_env}, which is not set in the environment` });
    }
    if (account.callback_secret_env && env[account.callback_secret_env] === undefined) {
      problems.push({ field: 'callback_secret_env', message: `names ${account.callback_secret_env}, which is not set in the environment` });
    }
    return problems;
  },
  createAdapter: createSandboxAdapter,
  createCallbackVerifier(account) {
    const secrets = resolveCallbackSecrets(account);
    return secrets ? createSandboxCallbackVerifier(secrets) : null;
  },
  describe: (account) => ({ base_url: account.base_url }),
  doctor: sandboxDoctor,
};
