/**
 * Turns parsed rows (an upload, an inline list, a list of ids) into a stored audience, a batch
 * at a time: check each row against the recipient schema POST /v1/notifications uses, fill
 * rows that give only an id from the stored recipient profile, write the batch, read on. At
 * most one batch and ten errors are held; a list with any bad row is deleted and refused with
 * the first ten problems, each naming its line.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { HeraldError, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { notificationRequestSchema, recipientAddressError, TIME_ZONE_MESSAGE } from '../intake/notification-request.js';
import { isTimeZone } from '../domain/index.js';
import type { AudienceRow, AudienceSource, AudienceView } from '../store/campaign-store.js';
import type { RecipientInput, Store } from '../store/store.js';
import { AUDIENCE_FIELDS, type ParsedLine } from './audience-parser.js';

export interface AudienceLoaderOptions {
  store: Store;
  clock: Clock;
  /** Where an audience that could not be deleted after a refusal is logged (its id only). */
  logger: Pick<Logger, 'warn'>;
  /** Rows per write transaction. 1,000: one commit (one fsync) per 1,000 rows keeps a 600,000-row upload to 600 commits. */
  batchSize?: number;
  /** Problems reported before the rest of the upload is only drained. */
  maxErrors?: number;
}

const validateRecipient: ValidateFunction = new Ajv({ allErrors: false }).compile(notificationRequestSchema.properties.recipient);

/**
 * A row's template data, as JSON: 8 KiB. A message's variables (a name, an order summary) are a
 * few hundred bytes; 600,000 rows at the cap would be ~5 GB, so the cap is what bounds an
 * audience's size on disk, not a guess at what templates need.
 */
export const MAX_ROW_DATA_BYTES = 8 * 1024;
const ADDRESS_FIELDS = ['email', 'phone', 'push_token'] as const;

type LineError = FieldError & { line: number };

export class AudienceLoader {
  private readonly batchSize: number;
  private readonly maxErrors: number;

  constructor(private readonly opts: AudienceLoaderOptions) {
    this.batchSize = opts.batchSize ?? 1_000;
    this.maxErrors = opts.maxErrors ?? 10;
  }

  /**
   * Stores every row of `items` as a new audience of the tenant and returns it once complete;
   * throws `audience_invalid` (naming up to ten rows by `label(line)`) or `audience_empty`, and
   * then nothing of it remains. The source is read to its end even after an error, so the
   * client's upload is drained rather than cut off before it reads the answer.
   */
  async load(tenantId: string, source: AudienceSource, items: AsyncIterable<ParsedLine[]>, label: (line: number) => string): Promise<AudienceView> {
    const { store, clock } = this.opts;
    const id = newId('aud', clock.now());
    await store.campaigns.createAudience({ id, tenantId, source, now: clock.now() });
    const errors: LineError[] = [];
    let batch: Array<{ line: number; fields: Record<string, unknown> }> = [];
    let position = 0;
    let written = 0;
    let read = 0;
    const flush = async () => {
      const rows = await this.resolve(tenantId, batch, label, errors);
      batch = [];
      if (errors.length > 0) return;
      const numbered: AudienceRow[] = rows.map((r) => ({ ...r, position: ++position }));
      written += await store.campaigns.appendAudienceRows(id, numbered);
    };
    try {
      for await (const chunk of items) {
        if (errors.length >= this.maxErrors) continue;
        for (const item of chunk) {
          if (item.kind === 'error') {
            if (errors.length < this.maxErrors) errors.push({ line: item.line, field: label(item.line), message: item.message });
            continue;
          }
          read++;
          batch.push(item);
          if (batch.length >= this.batchSize) await flush();
        }
      }
      if (batch.length > 0 && errors.length < this.maxErrors) await flush();
      if (errors.length > 0) {
        // Parse errors are found as lines are read, row errors a batch later: report in line order.
        const sorted: FieldError[] = errors.sort((a, b) => a.line - b.line).map(({ field, message }) => ({ field, message }));
        const first = sorted[0]!;
        throw new HeraldError(
          'audience_invalid',
          `${first.field} ${first.message}${sorted.length > 1 ? ` (and ${sorted.length - 1} more listed in errors)` : ''}`,
          sorted,
        );
      }
      if (written === 0) throw new HeraldError('audience_empty', 'the audience has no recipients');
      return await store.campaigns.sealAudience({ audienceId: id, duplicates: read - written, now: clock.now() });
    } catch (err) {
      await store.campaigns
        .deleteAudience(id)
        .catch((e) => this.opts.logger.warn({ err: e, audienceId: id }, 'cannot delete a refused audience; it stays loading until pruned'));
      throw err;
    }
  }

  /** Checks a batch; rows giving only an id take the stored profile's addresses. Problems go to `errors` (up to the cap). */
  private async resolve(
    tenantId: string,
    batch: Array<{ line: number; fields: Record<string, unknown> }>,
    label: (line: number) => string,
    errors: LineError[],
  ): Promise<Array<{ line: number; recipient: RecipientInput; data?: Record<string, unknown> }>> {
    const problem = (line: number, field: string | null, message: string) => {
      if (errors.length < this.maxErrors) errors.push({ line, field: field === null ? label(line) : `${label(line)}.${field}`, message });
    };
    const ok: Array<{ line: number; recipient: RecipientInput; data?: Record<string, unknown> }> = [];
    for (const { line, fields: all } of batch) {
      const { data, ...fields } = all;
      if (data !== undefined) {
        if (typeof data !== 'object' || data === null || Array.isArray(data)) {
          problem(line, 'data', 'must be an object of template variables, e.g. {"first_name":"Ada"}');
          continue;
        }
        const bytes = Buffer.byteLength(JSON.stringify(data), 'utf8');
        if (bytes > MAX_ROW_DATA_BYTES) {
          problem(line, 'data', `is ${bytes} bytes as JSON; at most ${MAX_ROW_DATA_BYTES}`);
          continue;
        }
      }
      if (!validateRecipient(fields)) {
        const e = validateRecipient.errors![0]!;
        const params = e.params as Record<string, unknown>;
        if (e.keyword === 'additionalProperties')
          problem(line, String(params.additionalProperty), `is not a known field; a recipient has ${AUDIENCE_FIELDS.join(', ')} and data (template variables)`);
        else if (e.keyword === 'required') problem(line, String(params.missingProperty), 'is required');
        else problem(line, e.instancePath.replace(/^\//, '') || null, e.message ?? 'is invalid');
        continue;
      }
      const recipient = fields as unknown as RecipientInput;
      const bad = recipientAddressError(recipient);
      if (bad) problem(line, bad.field, bad.message);
      else if (recipient.time_zone != null && !isTimeZone(recipient.time_zone)) problem(line, 'time_zone', TIME_ZONE_MESSAGE);
      else ok.push(data === undefined ? { line, recipient } : { line, recipient, data: data as Record<string, unknown> });
    }
    const idOnly = new Set(ok.filter((r) => ADDRESS_FIELDS.every((f) => r.recipient[f] == null)));
    if (idOnly.size === 0) return ok;
    const profiles = new Map(
      (
        await this.opts.store.campaigns.getRecipients(
          tenantId,
          [...idOnly].map((r) => r.recipient.id),
        )
      ).map((p) => [p.id, p]),
    );
    const out: Array<{ line: number; recipient: RecipientInput; data?: Record<string, unknown> }> = [];
    for (const r of ok) {
      if (!idOnly.has(r)) {
        out.push(r);
        continue;
      }
      const p = profiles.get(r.recipient.id);
      if (!p) {
        problem(r.line, null, `gives no address and there is no stored recipient ${JSON.stringify(r.recipient.id)} (store it with PUT /v1/recipients/{id})`);
        continue;
      }
      const merged: RecipientInput = { id: p.id };
      if (p.email !== null) merged.email = p.email;
      if (p.phone !== null) merged.phone = p.phone;
      if (p.push_token !== null) merged.push_token = p.push_token;
      const locale = r.recipient.locale ?? p.locale;
      if (locale != null) merged.locale = locale;
      const zone = r.recipient.time_zone ?? p.time_zone;
      if (zone != null) merged.time_zone = zone;
      out.push(r.data === undefined ? { line: r.line, recipient: merged } : { line: r.line, recipient: merged, data: r.data });
    }
    return out;
  }
}
