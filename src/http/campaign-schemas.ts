/**
 * The success answers of the campaign and audience routes (routes/campaigns.ts, audiences.ts), declared once in TypeBox and
 * registered by `$id` (response-schemas.ts). The campaign is campaign-progress.ts campaignJson;
 * its `plan` is the planner's own JSON as stored at creation or start (epoch-ms times), so it
 * keeps any field it has beyond those listed (`additionalProperties`), and `waves` and `capacity`
 * may be absent from a plan stored before they were planned.
 */
import { Type } from '@sinclair/typebox';
import { CHANNELS, PURPOSES } from '../domain/index.js';
import { CAMPAIGN_STATUSES } from '../domain/campaign-status.js';
import { AUDIENCE_SOURCES } from '../store/campaign-store.js';
import { count, numberOrNull, oneOf, orNull, pageOfRefs, ref, text, textOrNull, time, timeOrNull } from './schema-words.js';

const closed = { additionalProperties: false } as const;
const ms = Type.Number({ description: 'epoch ms' });
const msOrNull = Type.Union([Type.Number(), Type.Null()], { description: 'epoch ms' });

const wave = Type.Object(
  {
    time_zone: text,
    recipients: count,
    send_from: ms,
    projected_start: ms,
    projected_finish: ms,
    window_closes_at: msOrNull,
    fits_window: Type.Boolean(),
    meets_deadline: Type.Boolean(),
  },
  closed,
);

const options = Type.Object(
  {
    start_earlier: orNull(Type.Object({ latest_start_at: ms, earlier_by_ms: Type.Number(), missed_by_ms: Type.Number() }, closed)),
    more_capacity: orNull(Type.Object({ lane_rate_needed: Type.Number(), provider_rate_needed: numberOrNull }, closed)),
    smaller_audience: Type.Object({ max_audience: count }, closed),
    later_deadline: orNull(Type.Object({ earliest_deadline_at: ms }, closed)),
  },
  closed,
);

/** domain/campaign-plan.ts CampaignPlan with the waves (campaign-service.ts CampaignPlanWithWaves). */
const CampaignPlan = Type.Object(
  {
    audience_size: count,
    start_at: ms,
    deadline_at: ms,
    window_seconds: Type.Number(),
    required_rate: numberOrNull,
    available_rate: Type.Number(),
    best_case_seconds: numberOrNull,
    projected_finish_at: msOrNull,
    feasible: Type.Boolean(),
    reason: orNull(oneOf(['nothing_to_send', 'deadline_not_after_start', 'no_capacity', 'rate_too_low'])),
    options: orNull(options),
    waves: Type.Optional(
      orNull(Type.Array(wave, { description: 'One per time zone of the audience, in the order they may go; null when the lane gives no rate.' })),
    ),
    wave_warnings: Type.Optional(Type.Array(oneOf(['deadline_missed', 'window_missed']))),
    capacity: Type.Optional(
      Type.Object(
        {
          route: Type.Union([Type.String(), Type.Null()], { description: "the route's key; null when the channel has no route of two accounts or more" }),
          accounts: Type.Array(Type.Object({ provider_account: text, lane: text, max_rate: Type.Number() }, closed)),
          left_out: Type.Array(Type.Object({ provider_account: text, reason: oneOf(['demoted']) }, closed)),
        },
        { ...closed, description: 'What the campaign drains through (campaigns/route-capacity.ts); absent from a plan stored before routes.' },
      ),
    ),
  },
  { $id: 'CampaignPlan', additionalProperties: true },
);

/** campaign-progress.ts CampaignProgress. */
const progress = Type.Object(
  {
    audience_size: count,
    fanned_out: count,
    not_fanned_out: count,
    skipped: count,
    refused_by_code: Type.Record(Type.String(), count),
    queued: count,
    held: count,
    sending: count,
    unknown: count,
    accepted: count,
    sent: count,
    bounced: count,
    failed: count,
    expired: count,
    suppressed: count,
    unsubscribed: count,
    cancelled: count,
    downstream: Type.Record(Type.String(), count, { description: 'Accepted deliveries by downstream status.' }),
    projected_finish: Type.Object({ remaining: count, rate: Type.Number(), seconds_remaining: numberOrNull, finish_at: timeOrNull }, closed),
  },
  closed,
);

const campaignFields = {
  id: text,
  name: textOrNull,
  status: oneOf(CAMPAIGN_STATUSES),
  channel: oneOf(CHANNELS),
  purpose: oneOf(PURPOSES),
  provider_account: text,
  lane: text,
  lane_rate: Type.Number(),
  audience: Type.Object({ id: text, size: count }, closed),
  template: orNull(Type.Object({ id: text, version: Type.Integer() }, { ...closed, description: 'The template and the version pinned at creation.' })),
  deadline_at: time,
  send_at: Type.Union([time, Type.Null()], { description: 'When its messages become due; null: when it started.' }),
  ttl_seconds: Type.Number(),
  metadata: orNull(Type.Record(Type.String(), Type.Unknown())),
  plan: orNull(ref('CampaignPlan')),
  progress,
  created_at: time,
  started_at: timeOrNull,
  paused_at: timeOrNull,
  finished_at: timeOrNull,
};

const Campaign = Type.Object(campaignFields, { $id: 'Campaign', ...closed });
const CampaignDetail = Type.Object(
  { ...campaignFields, actions: Type.Array(ref('Action'), { description: 'Who paused, resumed or cancelled it, oldest first.' }) },
  { $id: 'CampaignDetail', ...closed },
);
const CampaignPage = pageOfRefs('Campaign', 'CampaignPage');

/** campaign-progress.ts audienceJson: POST /v1/audiences' 201 and GET /v1/audiences/:id. */
const Audience = Type.Object(
  {
    id: text,
    source: oneOf(AUDIENCE_SOURCES),
    size: count,
    duplicates: Type.Integer({ minimum: 0, description: 'Rows skipped because their recipient id was already in the audience (the first one is kept).' }),
    with_address: Type.Object(Object.fromEntries(CHANNELS.map((c) => [c, count])), { ...closed, description: 'How many recipients have each address.' }),
    created_at: time,
  },
  { $id: 'Audience', ...closed },
);

/** The schemas above, in the order they are registered. */
export const campaignSchemas = [CampaignPlan, Campaign, CampaignDetail, CampaignPage, Audience];
