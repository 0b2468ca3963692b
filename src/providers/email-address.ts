/**
 * Mailboxes as e-mail providers take them in `from` and `reply_to` settings: an address
 * (`ada@example.com`) or a display name and an address (`Ada <ada@example.com>`, with the name
 * quoted when it holds specials: `"Ada, Countess" <ada@example.com>`). Strict on purpose: a
 * setting that a provider would refuse (Resend's `invalid_from_address`, Postmark's ErrorCode
 * 300) fails at load instead of on every send, and no CR or LF can reach a header.
 */

export interface Mailbox {
  /** The display name as written (quotes kept), or null. */
  name: string | null;
  address: string;
  /** The address's domain, lower-cased. */
  domain: string;
}

// RFC 5321 §4.5.3.1: 64 octets of local part, 255 of domain; 254 for the whole path in practice.
const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
// RFC 5322 dot-atom text: atext runs joined by single dots.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
// A host name of at least two labels (providers refuse single-label domains), each 1-63
// letters, digits or hyphens, not starting or ending with a hyphen.
const DOMAIN = /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
// An unquoted display name: RFC 5322 phrase characters (atext, spaces, dots), no specials.
const PLAIN_NAME = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~. \u0080-\uFFFF-]+$/;
// A quoted display name: any printable character but an unescaped quote or backslash.
const QUOTED_NAME = /^"(?:[^"\\\r\n]|\\[^\r\n])*"$/;

/** The address part alone, or null when it is not a valid addr-spec. */
export function parseAddress(text: string): { address: string; domain: string } | null {
  if (text.length > MAX_ADDRESS) return null;
  const at = text.lastIndexOf('@');
  if (at <= 0) return null;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > MAX_LOCAL || !LOCAL_PART.test(local) || !DOMAIN.test(domain)) return null;
  return { address: text, domain: domain.toLowerCase() };
}

/** Parses `address` or `Name <address>`; null when it is neither (or holds a line break). */
export function parseMailbox(text: string): Mailbox | null {
  if (/[\r\n]/.test(text)) return null;
  const trimmed = text.trim();
  const angled = /^(.*?)\s*<([^<>]*)>$/.exec(trimmed);
  if (angled === null) {
    const bare = parseAddress(trimmed);
    return bare === null ? null : { name: null, ...bare };
  }
  const [, rawName = '', rawAddress = ''] = angled;
  const address = parseAddress(rawAddress);
  if (address === null) return null;
  const name = rawName.trim();
  if (name === '') return { name: null, ...address };
  if (!QUOTED_NAME.test(name) && !PLAIN_NAME.test(name)) return null;
  return { name, ...address };
}
