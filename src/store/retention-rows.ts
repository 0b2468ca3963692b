/** Row readers of the retention part (retention-store.ts), shared by both drivers. */
import type { DestinationToMask, ErasureRecord } from './retention-store.js';
import { jsonOrNull, strOrNull, type Row } from './rows.js';

/** A `retention_destinations_due` / `recipient_destinations` row. */
export function toDestinationToMask(r: Row): DestinationToMask {
  return { deliveryId: String(r.id), notificationId: String(r.notification_id), channel: String(r.channel), destination: String(r.destination) };
}

/** An `erasures` row. */
export function toErasureRecord(r: Row): ErasureRecord {
  return {
    id: Number(r.id),
    cause: r.cause as ErasureRecord['cause'],
    kind: r.what as ErasureRecord['kind'],
    tenantId: strOrNull(r.tenant_id),
    recipientId: strOrNull(r.recipient_id),
    count: Number(r.count),
    details: jsonOrNull(r.details_json),
    createdAt: Number(r.created_at),
  };
}

/** A re-seal cursor `<audience id>/<position>` (or '' for the first page) as the page query's two parameters. */
export function splitAfter(after: string): [string, number] {
  const i = after.lastIndexOf('/');
  return i < 0 ? ['', 0] : [after.slice(0, i), Number(after.slice(i + 1))];
}
