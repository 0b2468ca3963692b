/**
 * `herald doctor` for a sandbox account: one look-up for a reference nobody uses answers
 * whether the endpoint is up (any HTTP answer) and the API key is accepted (not 401). Nothing
 * is sent.
 */
import type { DoctorCheck } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';
import { resolveApiKey } from './adapter.js';
import { LOOKUP_PATH } from './lookup.js';

/** Probes the account's sandbox without sending. */
export async function sandboxDoctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]> {
  if (account.base_url === undefined) return [{ name: 'endpoint configured', ok: false, detail: 'base_url is not set' }];
  const url = new URL(account.base_url.replace(/\/+$/, '') + LOOKUP_PATH);
  url.searchParams.set('reference', 'herald-doctor-probe');
  const apiKey = resolveApiKey(account);
  let status: number;
  try {
    const res = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return [{ name: 'endpoint answers', ok: false, detail: `${url.origin} did not answer (${cause})` }];
  }
  return [
    { name: 'endpoint answers', ok: true, detail: `${url.origin} answered HTTP ${status}` },
    status === 401
      ? { name: 'credentials accepted', ok: false, detail: 'the sandbox refused the API key (401)' }
      : { name: 'credentials accepted', ok: status < 500, detail: status < 500 ? 'the look-up was authorised' : `the sandbox answered ${status}` },
  ];
}
