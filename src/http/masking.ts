/**
 * What a signed-in dashboard user sees of a destination. Only an admin session (and API-key
 * requests, which are not sessions) see destinations in full; operator and viewer sessions see
 * phone numbers as `+44•••••789` (country code and last three digits), e-mail addresses as
 * `a•••@example.com`, and push tokens and endpoints not at all.
 */
// The full metadata, as intake's (intake/phone-number.ts): the process loads one metadata set, not two.
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { Channel } from '../domain/index.js';

const DOT = '•';

/** How a request may see destinations: in full, or masked. */
export type DestinationView = 'full' | 'masked';

/**
 * `+44•••••789`: the country calling code and the last three digits kept, always five dots
 * between (so the mask does not tell the number's length either).
 */
export function maskPhone(phone: string): string {
  const digits = /^\+(\d{4,15})$/.exec(phone)?.[1];
  if (digits === undefined) return DOT.repeat(5);
  // The calling code from the numbering plan (libphonenumber's metadata); 1 digit when unknown.
  const cc = parsePhoneNumberFromString(phone)?.countryCallingCode ?? digits.slice(0, 1);
  return `+${cc}${DOT.repeat(5)}${digits.slice(-3)}`;
}

/** `a•••@example.com`: the local part's first character and the domain kept. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return DOT.repeat(3);
  return `${email.slice(0, 1)}${DOT.repeat(3)}${email.slice(at)}`;
}

/** A destination of `channel` as `view` shows it: unchanged, masked, or null (push, masked). */
export function showDestination(channel: Channel, value: string | null | undefined, view: DestinationView): string | null {
  if (value === null || value === undefined) return null;
  if (view === 'full') return value;
  if (channel === 'sms') return maskPhone(value);
  if (channel === 'email') return maskEmail(value);
  return null;
}
