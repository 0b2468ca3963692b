/**
 * The one registry of error codes Herald returns. Each code has an HTTP status and a title;
 * the API answers with RFC 9457 problem documents built from it, and docs/errors.md lists
 * every code (a test checks both ways).
 */

export const ERROR_CODES = {
  invalid_json: { status: 400, title: 'The body is not valid JSON' },
  validation_failed: { status: 400, title: 'The request has invalid or unknown fields' },
  invalid_url: { status: 400, title: 'The request URL is not valid (a broken percent-encoding)' },
  invalid_cursor: { status: 400, title: 'The pagination cursor is not one this API issued' },
  idempotency_key_invalid: { status: 400, title: 'The Idempotency-Key header is malformed' },
  callback_malformed: { status: 400, title: 'The callback is signed but its body is not an event this provider sends' },
  audience_invalid: { status: 400, title: 'The audience has rows Herald cannot use' },
  unauthorized: { status: 401, title: 'Missing or invalid API key' },
  callback_signature_invalid: { status: 401, title: 'The callback signature is missing, wrong or outside its time tolerance' },
  not_found: { status: 404, title: 'No such resource' },
  unsubscribe_link_invalid: { status: 404, title: 'This unsubscribe link is not one Herald issued' },
  callbacks_not_configured: { status: 404, title: 'This provider account does not receive callbacks (no callback secret is configured)' },
  idempotency_key_in_use: { status: 409, title: 'A request with this Idempotency-Key is still being processed' },
  duplicate_challenge: { status: 409, title: 'This challenge group and generation were already accepted' },
  stale_generation: { status: 409, title: 'A newer generation of this challenge was already accepted' },
  duplicate_risk_not_accepted: { status: 409, title: 'The first submission may have arrived; replaying needs accept_duplicate_risk' },
  replay_expired: { status: 409, title: 'The delivery has expired; resend the notification as a new generation instead' },
  not_replayable: { status: 409, title: 'This delivery cannot be replayed in its current state' },
  campaign_state_conflict: { status: 409, title: 'The campaign is not in a state that allows this' },
  template_exists: { status: 409, title: 'A template with this id already exists' },
  // Time-aware sending (docs/scheduling.md).
  send_at_conflict: { status: 409, title: 'This Idempotency-Key was used with the same request and another send_at' },
  payload_too_large: { status: 413, title: 'The body is larger than 256 KiB' },
  batch_too_large: { status: 413, title: 'A batch has more than 1,000 items or is larger than 16 MiB' },
  audience_too_large: { status: 413, title: 'The audience upload is larger than 200 MiB' },
  uri_too_long: { status: 414, title: 'A path parameter of the request URL is longer than Herald accepts (1,600 characters)' },
  unsupported_media_type: { status: 415, title: 'The body must be application/json' },
  unsupported_audience_format: { status: 415, title: 'An audience upload must be application/x-ndjson or text/csv' },
  idempotency_key_mismatch: { status: 422, title: 'This Idempotency-Key was used with a different request body' },
  template_invalid: { status: 422, title: 'The template version does not compile (Liquid or MJML); nothing was saved' },
  template_unknown: { status: 422, title: 'No such template or template version' },
  template_not_published: { status: 422, title: 'The template has no published version; name one' },
  template_part_missing: { status: 422, title: 'The template has no part for a requested channel in the locale it resolved to' },
  template_render_failed: { status: 422, title: 'The template did not render with this data (an undefined variable or a filter error)' },
  template_content_too_large: { status: 422, title: "A rendered template part is over its channel's limit" },
  content_too_large: { status: 422, title: "A part of the message is larger than the provider account's limit" },
  send_at_after_expiry: { status: 422, title: 'send_at is at or after expires_at: the message would expire before it may go' },
  send_at_beyond_horizon: { status: 422, title: 'send_at is further ahead than this Herald schedules' },
  expires_before_arrival: { status: 422, title: 'The message would expire before any of its channels could deliver it' },
  send_at_after_deadline: { status: 422, title: "A campaign's send_at is at or after its deadline_at: nothing could be sent in time" },
  invalid_time_zone: { status: 422, title: 'Not an IANA time zone name' },
  invalid_quiet_hours: { status: 422, title: 'A quiet-hours window is not valid (a clock time, an empty window, or a purpose that is never held)' },
  invalid_frequency_cap: { status: 422, title: 'A frequency cap is not valid (its max, its period, its action or its purpose)' },
  no_provider_account: { status: 422, title: 'No provider account is configured for a requested channel' },
  audience_empty: { status: 422, title: 'The audience has no recipients' },
  purpose_not_optional: { status: 422, title: 'Codes, receipts and alerts cannot be opted out of' },
  webhook_url_refused: { status: 422, title: 'Herald does not send webhooks to this URL' },
  // The dashboard (docs/dashboard.md): sign-in, sessions, roles, the operator's cancel, the built app.
  invalid_credentials: { status: 401, title: 'The API key or the username and password are wrong' },
  csrf_required: { status: 403, title: 'A request signed in with the session cookie must send X-CSRF-Token' },
  forbidden_role: { status: 403, title: 'The signed-in role may not do this' },
  not_cancellable: { status: 409, title: 'This delivery cannot be cancelled in its current state' },
  too_many_attempts: { status: 429, title: 'Too many failed sign-ins; wait and try again' },
  // The limits on the way in (docs/abuse-limits.md): each refusal names its limit in `limit`.
  rate_limited: { status: 429, title: "Too many requests for this API key's quota; wait until Retry-After" },
  velocity_limited: { status: 429, title: 'Too many notifications of this purpose to this destination or recipient; wait until Retry-After' },
  country_not_allowed: { status: 422, title: 'SMS to this country is not enabled on this Herald' },
  number_type_not_allowed: { status: 422, title: 'SMS to this kind of number (e.g. premium rate) is refused' },
  dashboard_not_built: { status: 503, title: 'The dashboard has not been built' },
  // Tenants and scoped keys (docs/tenants.md).
  scope_required: { status: 403, title: 'The API key does not have the scope this route needs' },
  tenant_exists: { status: 409, title: 'A tenant with this id already exists' },
  provider_account_not_assigned: { status: 422, title: 'The provider account is not assigned to this tenant' },
  rate_shares_exceed_account: { status: 422, title: "The tenants' rate shares of the provider account would sum past 1" },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Herald cannot take this request now; retry later' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One field-level problem: where, and what is wrong with it. */
export interface FieldError {
  field: string;
  message: string;
}

/** An error with a stable code, its HTTP status, a human detail and optional field errors. */
export class HeraldError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    options?: { cause?: unknown; limit?: LimitApplied; retryAfterS?: number },
  ) {
    super(detail, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HeraldError';
    this.status = ERROR_CODES[code].status;
    this.limit = options?.limit ?? null;
    this.retryAfterS = options?.retryAfterS ?? null;
  }
  /** For a limit's refusal: which limit applied (the problem document's `limit` member). */
  readonly limit: LimitApplied | null;
  /** For a refusal that passes with time: whole seconds to wait (the `Retry-After` header and `retry_after_s`). */
  readonly retryAfterS: number | null;
}

/** The limit a refusal names (docs/abuse-limits.md): e.g. `{ name: 'destination_velocity', max: 5, window_s: 600 }` or `{ name: 'sms_country', country: 'LV' }`. */
export interface LimitApplied {
  name: string;
  [detail: string]: string | number | string[];
}

/** A validation failure naming one field. */
export function fieldError(field: string, message: string): HeraldError {
  return new HeraldError('validation_failed', `${field} ${message}`, [{ field, message }]);
}

/** RFC 9457 problem document body for an error (the `type` URI points at docs/errors.md). */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  /** The limit that refused the request (rate_limited, velocity_limited, country_not_allowed, number_type_not_allowed). */
  limit?: LimitApplied;
  /** Seconds until the request may pass, as in Retry-After. */
  retry_after_s?: number;
}

/** Renders a HeraldError as the problem document the API returns. */
export function toProblem(err: HeraldError, instance?: string): ProblemDocument {
  return {
    type: `https://herald.dev/errors/${err.code}`,
    title: ERROR_CODES[err.code].title,
    status: err.status,
    code: err.code,
    detail: err.detail,
    ...(instance ? { instance } : {}),
    ...(err.errors.length ? { errors: err.errors } : {}),
    ...(err.limit ? { limit: err.limit } : {}),
    ...(err.retryAfterS !== null ? { retry_after_s: err.retryAfterS } : {}),
  };
}
