/**
 * What the webhook API does with a tenant's endpoints: register one (URL checked against the
 * address policy, a fresh `whsec_` secret), rotate its secret (the old one keeps signing beside
 * the new one for a day, so receivers can switch without losing a message), re-enable it, and
 * delete it. Secrets are returned only by create and rotate.
 */
import type { Clock } from '../clock.js';
import { HeraldError } from '../errors.js';
import { ulidMaker } from '../ids.js';
import type { Store } from '../store/store.js';
import type { WebhookEndpointView } from '../store/webhook-store.js';
import type { AddressPolicy } from './address-policy.js';
import { generateWebhookSecret } from '../signing/standard-webhooks.js';

/** How long the previous secret keeps signing after a rotation. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

const ulid = ulidMaker();
const ENDPOINT_ID = /^whe_[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `id` has the shape of an endpoint id (`whe_` + ULID). */
export function isEndpointId(id: string): boolean {
  return ENDPOINT_ID.test(id);
}

export interface NewEndpointRequest {
  url: string;
  eventTypes: string[];
  description: string | null;
}

/** A tenant's webhook endpoints as the API manages them; every method is tenant-scoped. */
export class WebhookEndpoints {
  constructor(private readonly deps: { store: Store; clock: Clock; policy: AddressPolicy }) {}

  /** Registers an endpoint after the SSRF check; throws `webhook_url_refused` naming the reason. */
  async create(tenantId: string, req: NewEndpointRequest): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const checked = await this.deps.policy.checkUrl(req.url);
    if (!checked.ok) throw new HeraldError('webhook_url_refused', `url ${checked.reason}`, [{ field: 'url', message: checked.reason }]);
    const now = this.deps.clock.now();
    const id = `whe_${ulid(now)}`;
    const secret = generateWebhookSecret();
    // `*` covers everything, so a list naming it and other types is stored as just `*`.
    const eventTypes = req.eventTypes.includes('*') ? ['*'] : [...new Set(req.eventTypes)];
    await this.deps.store.webhooks.createWebhookEndpoint({ id, tenantId, url: checked.url.href, description: req.description, eventTypes, secret, now });
    return { endpoint: await this.mustGet(tenantId, id), secret };
  }

  /** The tenant's endpoints, oldest first. */
  list(tenantId: string): Promise<WebhookEndpointView[]> {
    return this.deps.store.webhooks.listWebhookEndpoints(tenantId);
  }

  /** One endpoint of the tenant; `not_found` otherwise (another tenant's id included). */
  async mustGet(tenantId: string, id: string): Promise<WebhookEndpointView> {
    const e = isEndpointId(id) ? await this.deps.store.webhooks.getWebhookEndpoint(tenantId, id) : null;
    if (!e) throw new HeraldError('not_found', `no webhook endpoint ${id}`);
    return e;
  }

  /** Deletes an endpoint and its undelivered messages; `not_found` when the tenant has none by that id. */
  async delete(tenantId: string, id: string): Promise<void> {
    if (!isEndpointId(id) || !(await this.deps.store.webhooks.deleteWebhookEndpoint(tenantId, id)))
      throw new HeraldError('not_found', `no webhook endpoint ${id}`);
  }

  /** A new current secret; the replaced one keeps signing for PREVIOUS_SECRET_GRACE_MS (a second rotation within it retires the oldest). */
  async rotate(tenantId: string, id: string): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
    const now = this.deps.clock.now();
    const secret = generateWebhookSecret();
    const ok =
      isEndpointId(id) && (await this.deps.store.webhooks.rotateWebhookSecret({ tenantId, id, secret, previousUntil: now + PREVIOUS_SECRET_GRACE_MS, now }));
    if (!ok) throw new HeraldError('not_found', `no webhook endpoint ${id}`);
    return { endpoint: await this.mustGet(tenantId, id), secret };
  }

  /** Re-activates an endpoint (disabled, or backing off): its undelivered messages are due now. */
  async enable(tenantId: string, id: string): Promise<WebhookEndpointView> {
    const ok = isEndpointId(id) && (await this.deps.store.webhooks.enableWebhookEndpoint({ tenantId, id, now: this.deps.clock.now() }));
    if (!ok) throw new HeraldError('not_found', `no webhook endpoint ${id}`);
    return this.mustGet(tenantId, id);
  }
}
