/**
 * Which URLs Herald may send customer webhooks to (OWASP SSRF cheat sheet, "requests to any
 * external address"). Only http/https, no credentials in
 * the URL, and every address the host resolves to must be public: loopback, private, link-local
 * (cloud metadata), CGNAT, ULA, multicast, unspecified, IPv4-mapped, NAT64, documentation and
 * other reserved ranges are refused unless the operator allows a network explicitly
 * (`webhooks.allow_networks`). The same check runs at registration and inside the socket's DNS
 * lookup at connect time, so a name that later resolves somewhere private (DNS rebinding) is
 * refused too: the address checked is the address connected to.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to (A and AAAA). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo through node:dns, all families, in the resolver's order. */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** What a connect-time refusal looks like to the HTTP client (its `code`). */
export const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/** 2048: browsers' practical limit; a longer webhook URL is a mistake or an attack. */
export const MAX_URL_LENGTH = 2048;

// Names that are never public by definition: RFC 6761 (localhost, invalid, test, example),
// RFC 6762 (local), RFC 8375 (home.arpa), ICANN 2024 (internal: metadata.google.internal).
// Single-label names (`metadata`, `instance-data`, intranet hosts) resolve through search domains.
const PRIVATE_SUFFIXES = ['localhost', 'local', 'internal', 'home.arpa', 'invalid', 'test', 'example'];

// IPv6 global unicast is 2000::/3; ipaddr.js calls anything it has no name for "unicast",
// including deprecated IPv4-compatible addresses such as ::7f00:1.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local (cloud metadata services live here)',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private (RFC 1918)',
  uniqueLocal: 'unique local (fc00::/7)',
  ipv4Mapped: 'IPv4-mapped',
  rfc6145: 'IPv4-translated',
  rfc6052: 'NAT64 (64:ff9b::/96)',
  '6to4': '6to4',
  teredo: 'Teredo',
};

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parses `webhooks.allow_networks` entries; throws naming the first one that is not a CIDR. */
export function parseNetworks(networks: readonly string[]): Cidr[] {
  return networks.map((n) => {
    try {
      return ipaddr.parseCIDR(n);
    } catch {
      throw new Error(`"${n}" is not a network in CIDR form (e.g. 127.0.0.0/8, ::1/128)`);
    }
  });
}

/** The SSRF rules with the operator's allow list: URL checks for registration, a socket lookup for connect time. */
export class AddressPolicy {
  private readonly allowed: Cidr[];
  private readonly resolve: Resolver;

  constructor(opts: { allowNetworks?: readonly string[]; resolve?: Resolver } = {}) {
    this.allowed = parseNetworks(opts.allowNetworks ?? []);
    this.resolve = opts.resolve ?? systemResolver;
  }

  /** Null when Herald may connect to this IP address; otherwise why not. */
  refuseAddress(ip: string): string | null {
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.parse(ip);
    } catch {
      return `${ip} is not an IP address`;
    }
    if (this.isAllowed(addr)) return null;
    const range = addr.range();
    if (range !== 'unicast') {
      const what = RANGE_NAMES[range] ?? range;
      return `${ip} is ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what} address`;
    }
    if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return `${ip} is outside IPv6 global unicast (2000::/3)`;
    return null;
  }

  /** The URL's own rules (scheme, credentials, shape, IP literals), without DNS. */
  parseUrl(raw: string): UrlCheck {
    if (raw.length > MAX_URL_LENGTH) return { ok: false, reason: `is longer than ${MAX_URL_LENGTH} characters` };
    // The URL parser would silently drop tabs and newlines and read `\` as `/`: a URL that
    // means something other than it says is refused instead of repaired.
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
    if (/[\s\\\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: 'contains whitespace, control characters or backslashes' };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'is not an absolute URL' };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must use http or https' };
    if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not contain credentials (user@host)' };
    if (url.hash !== '' || raw.includes('#')) return { ok: false, reason: 'must not contain a fragment' };
    const literal = ipLiteral(url.hostname);
    if (literal !== null) {
      const why = this.refuseAddress(literal);
      if (why) return { ok: false, reason: `has a non-public host: ${why}` };
    } else if (!/^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*\.?$/.test(url.hostname)) {
      return { ok: false, reason: 'has a host name that is not a DNS name' };
    }
    return { ok: true, url };
  }

  /** The full check for a URL being registered: its own rules, then every address its host resolves to. */
  async checkUrl(raw: string): Promise<UrlCheck> {
    const parsed = this.parseUrl(raw);
    if (!parsed.ok || ipLiteral(parsed.url.hostname) !== null) return parsed;
    try {
      await this.resolveChecked(parsed.url.hostname);
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    return parsed;
  }

  /**
   * Resolves a host name and returns its addresses only if every one of them is allowed (an
   * attacker controlling a zone can mix a public and a private record); throws saying why not.
   */
  async resolveChecked(hostname: string): Promise<ResolvedAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    let addresses: ResolvedAddress[];
    try {
      addresses = await this.resolve(name);
    } catch (err) {
      throw refused(`host ${name} does not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (addresses.length === 0) throw refused(`host ${name} has no addresses`);
    for (const a of addresses) {
      const why = this.refuseAddress(a.address);
      if (why) throw refused(`host ${name} resolves to a non-public address: ${why}`);
    }
    // A name that is private by definition passes only when everything it resolves to is allowed explicitly.
    const privateName = !name.includes('.') || PRIVATE_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
    if (privateName && !addresses.every((a) => this.isAllowed(ipaddr.parse(a.address)))) {
      throw refused(`host ${name} is not a public name`);
    }
    return addresses;
  }

  /**
   * A `lookup` for node:net sockets (http.Agent option): resolves with `resolveChecked`, so a
   * connection is only ever opened to an address this policy allows, whatever DNS says by then.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolveChecked(hostname).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) return callback(Object.assign(new Error(`host ${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, usable);
        return callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  private isAllowed(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
  }
}

/** The bare IP address of a URL hostname (`[::1]` → `::1`), or null when it is a name. */
export function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  // The WHATWG parser has already turned 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 into 127.0.0.1.
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || (bare.includes(':') && ipaddr.IPv6.isValid(bare)) ? bare : null;
}

function refused(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: ADDRESS_REFUSED });
}
