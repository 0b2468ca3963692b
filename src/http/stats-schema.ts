/**
 * GET /v1/stats's answer (routes/stats.ts), in JSON Schema: registered once by
 * response-schemas.ts, so the published document names it `Stats`.
 */
import { DELIVERY_STATES, TERMINAL_REASONS } from '../domain/index.js';

/** The two series windows: 60 one-minute buckets, or 96 fifteen-minute buckets (a day). */
export const STATS_WINDOWS = { hour: { bucketMs: 60_000, buckets: 60 }, day: { bucketMs: 900_000, buckets: 96 } } as const;
const count = { type: 'integer', minimum: 0 } as const;
const seconds = { type: 'number', minimum: 0 } as const;
const iso = { type: 'string', format: 'date-time' } as const;
const countsOf = (keys: readonly string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: [...keys],
  properties: Object.fromEntries(keys.map((k) => [k, count])),
});

/** The answer. */
export const statsSchema = {
  $id: 'Stats',
  type: 'object',
  additionalProperties: false,
  required: [
    'at',
    'deliveries',
    'terminal',
    'unknown',
    'due',
    'accepted_without_progress',
    'deadline_misses_last_hour',
    'review_queue_size',
    'provider_accounts',
    'series',
    'reports',
  ],
  properties: {
    at: iso,
    deliveries: { ...countsOf(DELIVERY_STATES), description: 'Deliveries per state, every state present.' },
    terminal: { ...countsOf(TERMINAL_REASONS), description: 'Terminal deliveries per reason, every reason present.' },
    unknown: {
      type: 'object',
      additionalProperties: false,
      required: ['count', 'oldest_age_seconds'],
      properties: { count, oldest_age_seconds: { ...seconds, description: 'Since the oldest unknown delivery became unknown; 0 when none is.' } },
    },
    due: {
      type: 'array',
      description: 'Due, unexpired work (ready or retryable, next_attempt_at passed) per provider account, lane and purpose; only groups with work.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['provider_account', 'lane', 'purpose', 'count', 'oldest_age_seconds'],
        properties: { provider_account: { type: 'string' }, lane: { type: 'string' }, purpose: { type: 'string' }, count, oldest_age_seconds: seconds },
      },
    },
    accepted_without_progress: {
      type: 'array',
      description: 'Accepted deliveries whose downstream status has not moved past accepted for longer than metrics.accepted_progress_after_s.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['provider_account', 'channel', 'count'],
        properties: { provider_account: { type: 'string' }, channel: { type: 'string' }, count },
      },
    },
    deadline_misses_last_hour: { ...count, description: 'Deliveries that ended terminal/expired in the last hour without ever being accepted.' },
    review_queue_size: count,
    provider_accounts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'failures_last_15m', 'refused_attempts_last_15m', 'retry_budget', 'paused_until'],
        properties: {
          id: { type: 'string' },
          failures_last_15m: {
            ...count,
            description:
              "This tenant's messages that failed in the last 15 minutes: ended rejected, exhausted, unresolved or expired without acceptance, " +
              'or waiting to retry after a definite refusal. An offer to a phone is not a failure.',
          },
          refused_attempts_last_15m: {
            ...count,
            description:
              "This tenant's attempts in the last 15 minutes that were definitely refused (retryable, throttled, permanent): attempts, not messages.",
          },
          retry_budget: { type: 'string', enum: ['healthy', 'degraded'], description: "The account's retry budget (every tenant's calls)." },
          paused_until: {
            type: ['string', 'null'],
            format: 'date-time',
            description: "When a provider's throttle pause of the account ends; null when not paused.",
          },
        },
      },
    },
    series: {
      type: 'object',
      additionalProperties: false,
      required: ['window', 'bucket_seconds', 'points'],
      properties: {
        window: { type: 'string', enum: Object.keys(STATS_WINDOWS) },
        bucket_seconds: { type: 'integer', enum: Object.values(STATS_WINDOWS).map((w) => w.bucketMs / 1000) },
        points: {
          type: 'array',
          description: 'Oldest first; the last bucket contains `at`.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['t', 'accepted', 'confirmed', 'failed', 'unknown', 'failed_by_account', 'refused_attempts'],
            properties: {
              t: { ...iso, description: 'Bucket start.' },
              accepted: {
                ...count,
                description: 'Attempts the provider accepted, and unknown ones (offers to a phone among them) that evidence later showed arrived.',
              },
              confirmed: { ...count, description: 'Deliveries whose downstream status first reached sent, delivered or read.' },
              failed: {
                ...count,
                description: 'Failed messages (as failures_last_15m counts them) that entered their failed state in the bucket; the sum of failed_by_account.',
              },
              unknown: { ...count, description: 'Deliveries unknown now that became unknown in the bucket.' },
              failed_by_account: { type: 'object', additionalProperties: count, description: 'The failed messages per provider account.' },
              refused_attempts: {
                ...count,
                description: 'Attempts definitely refused (retryable, throttled, permanent) in the bucket: attempts, not messages.',
              },
            },
          },
        },
      },
    },
    reports: countsOf(['duplicate', 'not_received']),
  },
} as const;
