/**
 * What `herald keys` and `herald tenants` write on the audit trail: the actor is `cli` with the
 * operating-system user, since a shell with the database's credentials is beyond API keys.
 */
import { userInfo } from 'node:os';
import { newId } from '../ids.js';
import type { OperatorAction, Store } from '../store/store.js';

/** Records one CLI action on `tenantId`'s trail. */
export async function recordCliAction(
  store: Store,
  tenantId: string,
  now: number,
  action: OperatorAction,
  subjectId: string,
  detail: Record<string, unknown>,
): Promise<void> {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the action is still recorded, as "unknown".
  }
  await store.audit.record([
    {
      id: newId('act', now),
      tenantId,
      at: now,
      action,
      actor: { kind: 'cli', id: user, name: null },
      notificationId: null,
      deliveryId: null,
      campaignId: null,
      deviceId: null,
      subjectId,
      ip: null,
      detail,
    },
  ]);
}
