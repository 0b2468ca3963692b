/**
 * Where an operator alert goes, pure: the order in which Herald's own provider accounts are
 * tried for an e-mail or SMS target, and how a target is shown in the history (masked: the
 * history is readable by any API key, so it never holds a full address).
 */

/**
 * The accounts to try, in order: the configured preference (or every account of the channel,
 * in configuration order) without the accounts the message is about; those are used only when
 * nothing else is left (the channel's only account is still better than no message).
 */
export function accountOrder(preference: readonly string[], troubled: ReadonlySet<string>): string[] {
  const unique = [...new Set(preference)];
  const healthy = unique.filter((a) => !troubled.has(a));
  return healthy.length > 0 ? healthy : unique;
}

/** `a***@example.com`: the first character of the local part and the domain. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/** `+4915*****89`: country code and a little of the number, enough to tell two targets apart. */
export function maskPhone(number: string): string {
  if (number.length <= 6) return '***';
  return `${number.slice(0, 5)}${'*'.repeat(number.length - 7)}${number.slice(-2)}`;
}

/** `https://hooks.example.com/…`: scheme, host and port; the path may hold a token. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '***';
  }
}
