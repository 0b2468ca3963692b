/**
 * E-mail mailboxes as producers and operators write them: `ada@example.com` or
 * `Ada Lovelace <ada@example.com>` (RFC 5322 §3.4 name-addr / addr-spec, the common subset:
 * a quoted or plain display name, one address with a dotted domain). Anything that could
 * break out of a header (CR, LF, NUL, other control characters) is refused, never repaired.
 */

export interface Mailbox {
  /** The display name, unquoted, or null. */
  name: string | null;
  address: string;
}

const ADDR_SPEC = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:".]+(\.[^\s@<>()[\]\\,;:".]+)+$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;
const NAME_ADDR = /^(?:"((?:[^"\\]|\\.)*)"|([^"<>]*?))\s*<([^<>]+)>$/;

/** Parses one mailbox; null when it is not one (or could inject a header). */
export function parseMailbox(raw: string): Mailbox | null {
  if (CONTROL.test(raw) || raw.length > 320) return null;
  const s = raw.trim();
  if (ADDR_SPEC.test(s)) return { name: null, address: s };
  const m = NAME_ADDR.exec(s);
  if (m === null) return null;
  const address = m[3]!.trim();
  if (!ADDR_SPEC.test(address)) return null;
  const name = (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!).trim();
  return { name: name === '' ? null : name, address };
}

/** The domain of a mailbox's address (after the last `@`), lower-cased. */
export function mailboxDomain(m: Mailbox): string {
  return m.address.slice(m.address.lastIndexOf('@') + 1).toLowerCase();
}
