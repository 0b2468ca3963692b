/**
 * Signature Version 4 for SES API v2 requests, by the `aws4` package (not by hand). The
 * signing name of SES API v2 is `ses` whatever host the request goes to, so a `base_url`
 * (a test fake, a VPC endpoint) is signed for the configured region and service exactly as
 * `email.<region>.amazonaws.com` would be.
 */
import aws4 from 'aws4';
import type { SesCredentials } from './settings.js';

/** The SigV4 signing name of SES (API v1 and v2). */
export const SES_SIGNING_SERVICE = 'ses';

export interface UnsignedRequest {
  method: 'GET' | 'POST';
  url: URL;
  body: Buffer;
  /** Extra headers to sign (content-type...); host, x-amz-date, authorization and the session token are added. */
  headers: Record<string, string>;
}

/** Returns the request's headers with host, x-amz-date, x-amz-security-token (when any) and authorization set. */
export function signSesRequest(request: UnsignedRequest, region: string, credentials: SesCredentials, now: Date = new Date()): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers, host: request.url.host, 'x-amz-date': now.toISOString().replace(/[:-]|\.\d{3}/g, '') };
  // Every header aws4 would add is set here (lower case), so it adds none and takes the date from
  // x-amz-date: what is signed is exactly what the transport sends.
  if (request.body.length > 0) headers['content-length'] = String(request.body.length);
  if (credentials.sessionToken !== undefined) headers['x-amz-security-token'] = credentials.sessionToken;
  const signed = aws4.sign(
    {
      method: request.method,
      host: request.url.host,
      path: `${request.url.pathname}${request.url.search}`,
      headers,
      body: request.body,
      service: SES_SIGNING_SERVICE,
      region,
    },
    credentials,
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers ?? {})) {
    if (value !== undefined) out[name.toLowerCase()] = String(value);
  }
  return out;
}
