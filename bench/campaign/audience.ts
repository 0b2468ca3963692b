/**
 * The campaign's audience: N recipients as NDJSON, generated 1,000 lines at a time and streamed
 * into `POST /v1/audiences`, so 600,000 rows (~40 MB) are never one string in memory, here or in
 * the API (which writes 1,000 rows per transaction as it parses).
 */
import { request } from 'node:http';
import { Readable } from 'node:stream';

/** Campaign recipients' numbers: 415-555-xxxx, fictional US numbers libphonenumber accepts (never the sandbox's magic reject number). */
export const CAMPAIGN_PHONE_PREFIX = '+1415555';

/** Recipient i of the campaign. */
export function campaignPhone(i: number): string {
  return `${CAMPAIGN_PHONE_PREFIX}${String(i % 10_000).padStart(4, '0')}`;
}

function* ndjson(n: number): Generator<string> {
  for (let i = 0; i < n; i += 1_000) {
    let chunk = '';
    for (let j = i; j < Math.min(n, i + 1_000); j++) chunk += `{"id":"r${j}","phone":"${campaignPhone(j)}"}\n`;
    yield chunk;
  }
}

export interface AudienceUpload {
  id: string;
  size: number;
  seconds: number;
  body: Record<string, unknown>;
}

/** Streams the audience to the API; rejects unless it answers 201. */
export function uploadAudience(apiUrl: string, apiKey: string, n: number): Promise<AudienceUpload> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${apiUrl}/v1/audiences`,
      { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/x-ndjson' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          if (res.statusCode !== 201) return reject(new Error(`POST /v1/audiences answered ${res.statusCode}: ${text.slice(0, 500)}`));
          const body = JSON.parse(text) as Record<string, unknown> & { id: string; size: number };
          resolve({ id: body.id, size: body.size, seconds: (performance.now() - started) / 1000, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    Readable.from(ndjson(n)).on('error', reject).pipe(req);
  });
}
