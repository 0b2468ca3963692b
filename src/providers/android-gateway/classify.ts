/**
 * What a phone's `Failed` (or `Cancelled`) before `Sent` means: a pure table from the app's error
 * text to retryable or permanent, with a stable code. The texts are the app's own
 * (me.capcom.smsgateway `modules/messages/MessagesService.kt` at 0cdc5d8): "TTL expired" (the
 * phone's clock passed validUntil), "Send result: RESULT_… (…)" (Android's SmsManager result on
 * the sent intent), "Can't send message: …" and "sendSMS: …" (an exception before or while handing
 * the SMS to Android). Nothing reached the SMSC in any of them, so most are worth another try on
 * the purpose's ladder, maybe on another device; only what no device could fix is permanent.
 * Only the matched token is kept: the rest of an exception's text could quote anything.
 */

export interface PhoneFailure {
  permanent: boolean;
  /** Stable, `phone_…`; becomes the delivery's last error code. */
  code: string;
  /** For a person: the app's token (e.g. RESULT_ERROR_NO_SERVICE), never the raw text. */
  message: string;
  /** A lower bound for the retry (Android's own rate limit needs a pause), or null. */
  retryAfterMs: number | null;
}

interface Rule {
  test: RegExp;
  code: string;
  permanent: boolean;
  retryAfterMs?: number;
}

// Order matters: the first match wins. Android's per-app limit counts over 30 minutes; a
// minute's pause keeps a retry from hitting the same wall at once.
const RULES: readonly Rule[] = [
  { test: /TTL expired/, code: 'phone_ttl_expired', permanent: false },
  { test: /RESULT_ERROR_NO_SERVICE|RESULT_RIL_NETWORK_NOT_READY|RESULT_NETWORK_ERROR|RESULT_RIL_NETWORK_ERR\b/, code: 'phone_no_service', permanent: false },
  { test: /RESULT_ERROR_RADIO_OFF|RESULT_RADIO_NOT_AVAILABLE|RESULT_RIL_RADIO_NOT_AVAILABLE/, code: 'phone_radio_off', permanent: false },
  { test: /RESULT_ERROR_GENERIC_FAILURE|RESULT_RIL_GENERIC_ERROR/, code: 'phone_generic_failure', permanent: false },
  {
    test: /RESULT_ERROR_LIMIT_EXCEEDED|RESULT_RIL_REQUEST_RATE_LIMITED|RESULT_UNEXPECTED_EVENT_STOP_SENDING/,
    code: 'phone_rate_limited',
    permanent: false,
    retryAfterMs: 60_000,
  },
  // The user (or policy) refused premium short codes on this phone: the destination is the problem.
  { test: /RESULT_ERROR_SHORT_CODE_NOT_ALLOWED|RESULT_ERROR_SHORT_CODE_NEVER_ALLOWED/, code: 'phone_short_code_denied', permanent: true },
  // The text itself cannot be encoded as an SMS: the same content fails on every phone.
  {
    test: /RESULT_INVALID_SMS_FORMAT|RESULT_RIL_INVALID_SMS_FORMAT|RESULT_ENCODING_ERROR|RESULT_RIL_ENCODING_ERR/,
    code: 'phone_invalid_sms_format',
    permanent: true,
  },
  { test: /No SIMs found|SIM \d+ not found|RESULT_RIL_SIM_ABSENT/, code: 'phone_no_sim', permanent: false },
  { test: /RESULT_ERROR_FDN_CHECK_FAILURE/, code: 'phone_fdn_blocked', permanent: false },
];

const TOKEN = /RESULT_[A-Z_]+|TTL expired|No SIMs found|SIM \d+ not found/;

/** Classifies a phone's report that a message it held ended before the SMSC took it. */
export function classifyPhoneFailure(state: 'Failed' | 'Cancelled', error: string | null): PhoneFailure {
  if (state === 'Cancelled') {
    // Someone cancelled it on the phone (Herald never asks): a person decided not to send it.
    return { permanent: true, code: 'phone_cancelled', message: 'the message was cancelled on the phone before it was sent', retryAfterMs: null };
  }
  const text = error ?? '';
  const token = TOKEN.exec(text)?.[0] ?? null;
  const rule = RULES.find((r) => r.test.test(text));
  const message = `the phone reported Failed before sending${token ? `: ${token}` : ''}`;
  if (!rule) return { permanent: false, code: 'phone_send_failed', message, retryAfterMs: null };
  return { permanent: rule.permanent, code: rule.code, message, retryAfterMs: rule.retryAfterMs ?? null };
}

/** Every code `classifyPhoneFailure` can return (docs/phone-gateway.md lists them). */
export const PHONE_FAILURE_CODES: readonly string[] = [...RULES.map((r) => r.code), 'phone_send_failed', 'phone_cancelled'];

/**
 * True when a `Failed` error text is a delivery report's ("Delivery result from SC …", "Delivery
 * result: …"): the SMS had left the phone, even if its `Sent` report never arrived.
 */
export function isDeliveryReportFailure(error: string | null): boolean {
  return error !== null && /^Delivery result/.test(error);
}
