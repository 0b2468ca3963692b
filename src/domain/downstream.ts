/**
 * Downstream status: what evidence says happened after the provider accepted. It only moves
 * forward on a lattice: accepted < sent < delivered < read, and bounced, failed and
 * complained are final. A late or repeated event never moves it backwards.
 */

export const DOWNSTREAM_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'bounced', 'failed', 'complained'] as const;
export type DownstreamStatus = (typeof DOWNSTREAM_STATUSES)[number];

const RANK: Record<DownstreamStatus, number> = {
  accepted: 0,
  sent: 1,
  delivered: 2,
  read: 3,
  bounced: 4,
  failed: 4,
  complained: 4,
};

const FINAL: ReadonlySet<DownstreamStatus> = new Set(['bounced', 'failed', 'complained']);

/** The status after merging `incoming` into `current`: never lower, never out of a final status. */
export function mergeDownstream(current: DownstreamStatus | null, incoming: DownstreamStatus): DownstreamStatus {
  if (current === null) return incoming;
  if (FINAL.has(current)) return current;
  return RANK[incoming] > RANK[current] ? incoming : current;
}
