/**
 * An endpoint under an account's base URL (a provider's public API, or `base_url`: a region, a
 * proxy, a fake in tests), keeping the base's path prefix.
 */

/** Checks that `baseUrl` is an http(s) URL; throws naming the account otherwise (a configuration error). */
export function parseBaseUrl(accountId: string, baseUrl: string): URL {
  const base = new URL(baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`provider account ${accountId}: base_url must be http or https`);
  return base;
}

/** `path` (starting with "/") under `base`, with `query` when given. */
export function endpointUrl(base: URL, path: string, query?: URLSearchParams): URL {
  const url = new URL(base.origin);
  url.pathname = base.pathname.replace(/\/+$/, '') + path;
  if (query !== undefined) url.search = query.toString();
  return url;
}
