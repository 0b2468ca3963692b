/**
 * The OpenAPI (JSON Schema) shape of a delivery's `evidence` timeline (views.ts evidenceJson),
 * published on GET /v1/deliveries/{id}. One item schema for both kinds: `kind` says which
 * fields an item has.
 */
import { DOWNSTREAM_STATUSES } from '../domain/index.js';
import { LOOKUP_LED_TO, LOOKUP_RESULTS } from '../store/evidence-store.js';

const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
const textOrNull = { type: ['string', 'null'] } as const;

/** One item of a delivery's `evidence` (response-schemas.ts DeliveryDetail). */
export const evidenceItemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'at'],
  properties: {
    kind: { type: 'string', enum: ['callback', 'lookup'] },
    at: { ...time, description: 'when Herald received the callback, or made the look-up' },
    // kind: callback
    provider_account: { type: 'string' },
    event_id: { type: 'string', description: "the provider's event id (a repeat of it is recorded once)" },
    status: { type: 'string', enum: [...DOWNSTREAM_STATUSES] },
    occurred_at: { ...timeOrNull, description: "the provider's own time for the event, when it gives one" },
    received_at: time,
    applied_at: timeOrNull,
    effect: {
      type: 'string',
      enum: ['applied', 'no_change', 'pending'],
      description: 'applied: moved the state or downstream status; no_change: late or repeated; pending: parked until the delivery settles',
    },
    // kind: lookup
    attempt: { type: 'integer', description: 'the attempt whose ambiguity the look-up was settling' },
    result: { type: 'string', enum: [...LOOKUP_RESULTS] },
    led_to: { type: 'string', enum: [...LOOKUP_LED_TO], description: 'asked_later: no authoritative answer yet, or inside the look-up grace period' },
    error_code: { ...textOrNull, description: "the adapter's code when the look-up got no answer" },
    // both
    provider_message_id: textOrNull,
  },
} as const;
