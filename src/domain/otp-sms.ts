/**
 * One-time codes in an SMS formatted for the phone to read them itself:
 * - WebOTP (origin-bound one-time codes, WICG): the last line is `@<domain> #<code>`, and a
 *   browser on that domain offers the code to the page that asked for it;
 * - Android's SMS Retriever: the message includes the app's 11-character hash, and the app
 *   that owns the hash receives the message without the SMS permission.
 * With both, the hash goes on its own line just above the WebOTP line, which must stay last.
 */

export interface OtpSmsFormat {
  /** The site's domain for WebOTP, e.g. `example.com` (no scheme, no path). */
  webotpDomain?: string | null;
  /** The Android app's SMS Retriever hash (11 characters of base64). */
  appHash?: string | null;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
const APP_HASH = /^[A-Za-z0-9+/]{11}$/;
const CODE = /^[A-Za-z0-9]{4,10}$/;

/** What is wrong with a format or code, for a field error; null when they are usable. */
export function otpSmsFormatError(format: OtpSmsFormat, code: string): string | null {
  if (!CODE.test(code)) return 'code must be 4-10 letters or digits';
  if (format.webotpDomain != null && !DOMAIN.test(format.webotpDomain)) return 'webotp_domain must be a domain name such as example.com';
  if (format.appHash != null && !APP_HASH.test(format.appHash)) return 'app_hash must be the 11-character SMS Retriever hash';
  return null;
}

/** The text with the code's machine-readable lines appended; the text unchanged when the format asks for none. */
export function formatOtpSms(text: string, code: string, format: OtpSmsFormat): string {
  const lines: string[] = [];
  if (format.appHash) lines.push(format.appHash);
  if (format.webotpDomain) lines.push(`@${format.webotpDomain} #${code}`);
  if (lines.length === 0) return text;
  return `${text.replace(/\s+$/, '')}\n\n${lines.join('\n')}`;
}
