/**
 * A phone number read once on the way in (issue 24): intake's validity check, the SMS limits'
 * country and number type (docs/abuse-limits.md) and the suppression list all take what one
 * parse with libphonenumber's full metadata says, instead of parsing the same number two or
 * three times with two metadata sets.
 *
 * Valid means what Google's libphonenumber means by it: E.164 form, and a number in a range the
 * numbering plan assigns to some type (mobile, fixed line, toll free, premium rate, ...), which
 * needs the full ("max") metadata. Until issue 24 intake used libphonenumber-js's default "min"
 * metadata, which only matches a country's general pattern, so it also accepted numbers in
 * unassigned ranges; those had no type, so `limits.sms.refuse_number_types` could not judge
 * them. The cost of the stricter rule is a range assigned after the installed metadata was
 * published; libphonenumber-js republishes it every few weeks (docs/api.md, "Phone numbers").
 */
import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';

/** What intake knows of a valid number after its one parse. */
export interface PhoneNumberFacts {
  /** The number exactly as given (E.164); deliveries, suppressions and velocity hashes use this text. */
  number: string;
  /** Its region (ISO 3166-1 alpha-2); "001", libphonenumber's name, for non-geographic numbers (+800, +881, ...). */
  country: string;
  /** Its libphonenumber type: MOBILE, FIXED_LINE_OR_MOBILE, PREMIUM_RATE, TOLL_FREE, ... */
  type: Exclude<NumberType, undefined>;
}

// E.164: a plus, no leading zero, 7 to 15 digits in all, nothing else (libphonenumber alone
// would also read "+1 (415) 555-0123" or a number inside other text).
const E164 = /^\+[1-9]\d{6,14}$/;

/** The promise of an invalid number's refusal, shared by intake, audiences, profiles and suppressions. */
export const INVALID_PHONE_MESSAGE = 'must be a valid phone number in E.164 form, e.g. +14155550123';

/**
 * The facts of `value` if it is a valid number (see the header), else null. One parse with the
 * full metadata and one type lookup: with that metadata a number is valid exactly when it has a
 * type (libphonenumber-js `isValid` is `getNumberType(...) !== undefined`), so validity and the
 * type are one lookup, not two.
 */
export function readPhoneNumber(value: string): PhoneNumberFacts | null {
  if (!E164.test(value)) return null;
  const parsed = parsePhoneNumberFromString(value);
  const type = parsed?.getType();
  if (parsed === undefined || type === undefined) return null;
  return { number: value, country: parsed.country ?? '001', type };
}
