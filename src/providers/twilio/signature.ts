/**
 * Twilio's request signature, `X-Twilio-Signature`
 * (https://www.twilio.com/docs/usage/webhooks/webhooks-security): base64 of HMAC-SHA1, keyed
 * with the account's Auth Token, over the full URL Twilio requested followed by every POST
 * parameter, names sorted, each as name + value with no separators (a repeated name: one
 * name + value per distinct value, values sorted). Written here rather than imported because
 * providers/ may not depend on the `twilio` SDK; test/providers/twilio/signature.test.ts
 * checks it against the SDK's getExpectedTwilioSignature / validateRequest on generated
 * cases, and against Twilio's published example.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Form parameters by name, every value of a repeated name kept. */
export type TwilioParams = ReadonlyMap<string, readonly string[]>;

/** Parses an application/x-www-form-urlencoded body into parameters (as Twilio's SDK helpers see them). */
export function parseFormParams(rawBody: Buffer): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(rawBody.toString('utf8'))) {
    const values = out.get(name);
    if (values) values.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** The string Twilio signs: the URL, then each parameter's name + value in sorted order. */
export function signedString(url: string, params: TwilioParams): string {
  let data = url;
  // Default sort (UTF-16 code units), as Twilio's Node SDK sorts; repeated values once each.
  for (const name of [...params.keys()].sort()) {
    for (const value of [...new Set(params.get(name) ?? [])].sort()) data += name + value;
  }
  return data;
}

/** The signature Twilio sends for `url` and `params` under `authToken`. */
export function twilioSignature(authToken: string, url: string, params: TwilioParams): string {
  return createHmac('sha1', authToken)
    .update(Buffer.from(signedString(url, params), 'utf8'))
    .digest('base64');
}

interface UrlParts {
  scheme: string;
  userInfo: string;
  host: string;
  port: string;
  rest: string;
}

/** Splits a URL without normalising it: the path and query keep the exact characters Twilio signed. */
function splitUrl(url: string): UrlParts | null {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (match === null) return null;
  const [prefix = '', scheme = '', authority = ''] = match;
  const userInfoEnd = authority.lastIndexOf('@');
  const hostAndPort = authority.slice(userInfoEnd + 1);
  // In an IPv6 literal the port's colon comes after the closing bracket.
  const portStart = hostAndPort.indexOf(':', hostAndPort.lastIndexOf(']') + 1);
  return {
    scheme,
    userInfo: authority.slice(0, userInfoEnd + 1),
    host: portStart === -1 ? hostAndPort : hostAndPort.slice(0, portStart),
    port: portStart === -1 ? '' : hostAndPort.slice(portStart),
    rest: url.slice(prefix.length),
  };
}

/**
 * The URLs a signature may have been computed over: without any port, and with the scheme's
 * default port. Twilio's own SDKs accept both because Twilio's signing has not always agreed
 * with itself about ports (webhook-signatures.md, "Ports").
 */
export function candidateUrls(url: string): string[] {
  const parts = splitUrl(url);
  if (parts === null) return [url];
  const withoutPort = parts.scheme + parts.userInfo + parts.host + parts.rest;
  const withPort =
    parts.port !== '' ? url : parts.scheme + parts.userInfo + parts.host + (parts.scheme.toLowerCase() === 'https://' ? ':443' : ':80') + parts.rest;
  return withoutPort === withPort ? [withoutPort] : [withoutPort, withPort];
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // The expected length is fixed by SHA-1 and not secret: returning early on a mismatch leaks nothing.
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when `signature` is Twilio's for `url` and `params` under one of `authTokens` (constant-time compares). */
export function verifyTwilioSignature(authTokens: readonly string[], signature: string, url: string, params: TwilioParams): boolean {
  const urls = candidateUrls(url);
  let ok = false;
  // Every candidate is computed, so the time taken does not say which key or URL matched.
  for (const token of authTokens) {
    for (const candidate of urls) ok = safeEqual(twilioSignature(token, candidate, params), signature) || ok;
  }
  return ok;
}
