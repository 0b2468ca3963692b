/**
 * `herald doctor` for an FCM account, without sending anything to anyone:
 *
 * 1. the service-account key reads and is an RSA key;
 * 2. Google's token endpoint exchanges the key's JWT for an access token (the key is live);
 * 3. FCM takes that token for the project: a `validate_only` send (FCM checks the request and
 *    delivers nothing) to a token that cannot exist must be refused as a bad token, which proves
 *    the project exists and the service account may send through it (403 and 404 say otherwise).
 *
 * What it cannot check: that any real device token is registered, or the project's APNs and Web
 * Push credentials (FCM reports those per message, THIRD_PARTY_AUTH_ERROR).
 */
import http from 'node:http';
import https from 'node:https';
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { endpointUrl } from '../outbound-http/endpoint.js';
import { exchangeOnce } from '../outbound-http/exchange.js';
import { AccessTokenSource } from './access-token.js';
import { classifyFcmResponse, readRpcError } from './classify.js';
import { FCM_API_URL, readServiceAccount } from './settings.js';

/** A registration token no device can hold: FCM answers INVALID_ARGUMENT for it. */
export const DOCTOR_PROBE_TOKEN = 'herald-doctor-probe-not-a-registration-token';

function agentFor(url: URL): http.Agent {
  return url.protocol === 'https:' ? new https.Agent({ keepAlive: false }) : new http.Agent({ keepAlive: false });
}

/** Probes the account's key, Google's token endpoint and FCM's project, sending nothing. */
export async function fcmDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  const read = readServiceAccount(account);
  if (!read.ok) return [{ name: 'service account key', ok: false, detail: `${read.problem.field} ${read.problem.message}` }];
  const sa = read.value;
  const checks: DoctorCheck[] = [{ name: 'service account key', ok: true, detail: `an RSA key of ${sa.clientEmail} for project ${sa.projectId}` }];
  const tokenAgent = agentFor(new URL(sa.tokenUri));
  const base = new URL(account.base_url ?? FCM_API_URL);
  const agent = agentFor(base);
  try {
    const tokens = new AccessTokenSource({ serviceAccount: sa, agent: tokenAgent, timeoutMs: account.timeout_ms, now: Date.now });
    const token = await tokens.get(account.timeout_ms, signal);
    if (token.kind === 'failed') {
      const outcome = token.outcome;
      checks.push({ name: 'credentials accepted', ok: false, detail: outcome.kind === 'accepted' ? 'no access token' : `${outcome.kind}: ${outcome.message}` });
      return checks;
    }
    checks.push({ name: 'credentials accepted', ok: true, detail: `${new URL(sa.tokenUri).host} issued an access token for the key` });
    const url = endpointUrl(base, `/v1/projects/${encodeURIComponent(sa.projectId)}/messages:send`);
    const body = {
      validate_only: true,
      message: { token: DOCTOR_PROBE_TOKEN, notification: { title: 'herald doctor', body: 'validate only: never delivered' } },
    };
    const result = await exchangeOnce({
      url,
      headers: {
        authorization: `Bearer ${token.accessToken}`,
        'content-type': 'application/json; charset=UTF-8',
        accept: 'application/json',
        'user-agent': 'herald-fcm-doctor',
      },
      body: Buffer.from(JSON.stringify(body)),
      timeoutMs: account.timeout_ms,
      signal,
      agent,
    });
    if (result.kind === 'failure') {
      checks.push({
        name: 'project accepts the account',
        ok: false,
        detail: `${base.host} did not answer (${result.failure.cause}${result.failure.code ? ` ${result.failure.code}` : ''})`,
      });
      return checks;
    }
    const outcome = classifyFcmResponse(result, Date.now());
    const rpc = readRpcError(result.body);
    const provesAccess = outcome.kind === 'permanent' && outcome.code === 'fcm_bad_token';
    checks.push({
      name: 'project accepts the account',
      ok: provesAccess,
      detail: provesAccess
        ? `FCM refused only the probe's made-up registration token, not the access token or project ${sa.projectId} (it answers 401, 403 or 404 for those); validate_only: nothing sent`
        : `FCM answered HTTP ${result.status}${rpc?.status ? ` ${rpc.status}` : ''}${rpc?.errorCode ? ` (${rpc.errorCode})` : ''} to a validate_only probe`,
    });
    return checks;
  } finally {
    agent.destroy();
    tokenAgent.destroy();
  }
}
