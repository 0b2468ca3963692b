/**
 * The SMSGate app's request bodies, validated as the reference server does (client-go
 * `smsgateway/requests_mobile.go`, `domain_messages.go`, `domain_devices.go`): a body that breaks
 * a rule is refused whole with 400 and a message, before anything is written. Unknown fields are
 * ignored, as Go's decoder does (newer app versions add fields).
 */
import { isPhoneState, type PhoneState } from '../domain/index.js';
import { isDeliveryReportFailure } from '../providers/android-gateway/classify.js';
import type { PhoneReport, SimCard } from '../store/store.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export interface RegisterBody {
  name: string;
  simCards: SimCard[] | null;
}

export interface DevicePatchBody {
  id: string;
  simCards: SimCard[] | null;
}

export interface PasswordChangeBody {
  currentPassword: string;
  newPassword: string;
}

const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optString = (v: unknown): v is string | null | undefined => v === undefined || v === null || typeof v === 'string';

function simCards(v: unknown, field: string): Parsed<SimCard[] | null> {
  if (v === undefined || v === null) return { ok: true, value: null };
  if (!Array.isArray(v) || v.length > 8) return fail(`${field} must be a list of at most 8 SIM cards`);
  const out: SimCard[] = [];
  for (const [i, c] of v.entries()) {
    if (!isObject(c)) return fail(`${field}[${i}] must be an object`);
    const { slotIndex, simNumber, phoneNumber, carrierName, iccid } = c;
    if (!Number.isSafeInteger(slotIndex) || (slotIndex as number) < 0 || (slotIndex as number) > 7)
      return fail(`${field}[${i}].slotIndex must be an integer 0-7`);
    if (!Number.isSafeInteger(simNumber) || (simNumber as number) < 1 || (simNumber as number) > 3) return fail(`${field}[${i}].simNumber must be 1, 2 or 3`);
    for (const [k, s] of Object.entries({ phoneNumber, carrierName, iccid })) {
      if (!optString(s) || (typeof s === 'string' && s.length > 64)) return fail(`${field}[${i}].${k} must be a string of at most 64 characters`);
    }
    // The app masks all but the last 4 characters; Herald keeps only what is masked so.
    out.push({
      slotIndex: slotIndex as number,
      simNumber: simNumber as number,
      phoneNumber: mask(phoneNumber),
      carrierName: mask(carrierName),
      iccid: mask(iccid),
    });
  }
  return { ok: true, value: out };
}

/** All but the last 4 characters masked, as the app sends them (a custom client may not). */
export function mask(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  return v.length > 4 ? '*'.repeat(v.length - 4) + v.slice(-4) : '****';
}

/** `POST /device`: `{name?, pushToken, simCards?}`; the push token is ignored (SSE only). */
export function parseRegister(body: unknown): Parsed<RegisterBody> {
  if (!isObject(body)) return fail('the body must be a JSON object');
  const { name, pushToken } = body;
  if (!optString(name) || (typeof name === 'string' && name.length > 128)) return fail('name must be a string of at most 128 characters');
  if (!optString(pushToken) || (typeof pushToken === 'string' && pushToken.length > 256))
    return fail('pushToken must be a string of at most 256 characters, or null');
  const sims = simCards(body.simCards, 'simCards');
  if (!sims.ok) return sims;
  return { ok: true, value: { name: typeof name === 'string' && name !== '' ? name : 'Android device', simCards: sims.value } };
}

/** `PATCH /device`: `{id, pushToken, simCards}`. */
export function parseDevicePatch(body: unknown): Parsed<DevicePatchBody> {
  if (!isObject(body)) return fail('the body must be a JSON object');
  if (typeof body.id !== 'string') return fail('id is required');
  if (!optString(body.pushToken) || (typeof body.pushToken === 'string' && body.pushToken.length > 256))
    return fail('pushToken must be a string of at most 256 characters, or null');
  const sims = simCards(body.simCards, 'simCards');
  if (!sims.ok) return sims;
  return { ok: true, value: { id: body.id, simCards: sims.value } };
}

/** `PATCH /user/password`: the new password has at least 14 characters (client-go `min=14`). */
export function parsePasswordChange(body: unknown): Parsed<PasswordChangeBody> {
  if (!isObject(body)) return fail('the body must be a JSON object');
  const { currentPassword, newPassword } = body;
  if (typeof currentPassword !== 'string' || currentPassword === '') return fail('currentPassword is required');
  if (typeof newPassword !== 'string' || newPassword.length < 14 || newPassword.length > 256) return fail('newPassword must be 14 to 256 characters');
  return { ok: true, value: { currentPassword, newPassword } };
}

/** Dates as the app writes them (Gson `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`), or any RFC 3339 time. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The token of an error text kept for the record (classify.ts reads the same); never the raw text. */
export const ERROR_TOKEN = /RESULT_[A-Z_]+|TTL expired|No SIMs found|SIM \d+ not found|Delivery result/;

/**
 * `PATCH /message`: `[{id, state, recipients: [{phoneNumber, state, error?}], states}]`. Herald
 * offers one recipient per message, so the message's own state is what counts; `sent` comes
 * from the state history (`Sent` or `Delivered` in `states`) or a delivery-report failure.
 */
export function parseStateReports(body: unknown): Parsed<PhoneReport[]> {
  if (!Array.isArray(body)) return fail('the body must be a JSON array of message states');
  if (body.length > 100) return fail('at most 100 message states per request');
  const out: PhoneReport[] = [];
  for (const [i, item] of body.entries()) {
    if (!isObject(item)) return fail(`[${i}] must be an object`);
    const { id, state, recipients, states } = item;
    if (typeof id !== 'string' || id === '' || id.length > 36) return fail(`[${i}].id is required, at most 36 characters`);
    if (!isPhoneState(state)) return fail(`[${i}].state must be one of Pending, Processed, Sent, Delivered, Failed, Cancelling, Cancelled`);
    if (!Array.isArray(recipients) || recipients.length === 0) return fail(`[${i}].recipients is required, at least one`);
    let error: string | null = null;
    for (const [j, r] of recipients.entries()) {
      if (!isObject(r) || typeof r.phoneNumber !== 'string' || r.phoneNumber === '' || r.phoneNumber.length > 128)
        return fail(`[${i}].recipients[${j}].phoneNumber is required, at most 128 characters`);
      if (!isPhoneState(r.state)) return fail(`[${i}].recipients[${j}].state is not a message state`);
      if (!optString(r.error)) return fail(`[${i}].recipients[${j}].error must be a string`);
      if (typeof r.error === 'string' && error === null) error = r.error;
    }
    const history = new Set<PhoneState>();
    if (states !== undefined && states !== null) {
      if (!isObject(states)) return fail(`[${i}].states must be an object of state → time`);
      for (const [k, v] of Object.entries(states)) {
        if (!isPhoneState(k)) return fail(`[${i}].states has an unknown state ${JSON.stringify(k.slice(0, 20))}`);
        if (typeof v !== 'string' || !RFC3339.test(v) || Number.isNaN(Date.parse(v))) return fail(`[${i}].states.${k} must be a date-time`);
        history.add(k);
      }
    }
    const sent =
      history.has('Sent') || history.has('Delivered') || state === 'Sent' || state === 'Delivered' || (state === 'Failed' && isDeliveryReportFailure(error));
    out.push({ messageId: id, state, sent, error: error === null ? null : (ERROR_TOKEN.exec(error)?.[0] ?? 'other') });
  }
  return { ok: true, value: out };
}
