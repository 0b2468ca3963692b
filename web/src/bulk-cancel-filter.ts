/**
 * Which of the messages page's list filters become POST /v1/deliveries/cancel's filter
 * (pages/bulk-cancel.tsx), and which refuse it: a bulk cancel must never reach rows the list
 * does not show.
 */
/** The list filters bulk cancel cannot apply: with one of them set, cancelling would reach rows the list does not show. */
const UNSUPPORTED = ['terminal_reason', 'downstream_status', 'channel', 'device', 'failed'] as const;

/** The bulk-cancel filter for the list's filters, or why there is none. */
export function cancelFilterFor(params: Record<string, string>): { filter: Record<string, string> } | { refused: string } {
  const unsupported = UNSUPPORTED.filter((k) => params[k] !== undefined);
  if (unsupported.length > 0) return { refused: `Bulk cancel cannot filter by ${unsupported.join(', ').replaceAll('_', ' ')}: clear it first.` };
  if (params.state !== undefined && params.state !== 'ready' && params.state !== 'retryable') {
    return { refused: `Only ready and retryable deliveries can be cancelled, not ${params.state}.` };
  }
  if (params.q !== undefined && /^(dlv|ntf)_/.test(params.q))
    return { refused: 'Bulk cancel selects a recipient, not one notification: cancel it from its dialog.' };
  const filter: Record<string, string> = {};
  if (params.state) filter.state = params.state;
  if (params.purpose) filter.purpose = params.purpose;
  if (params.provider_account) filter.provider_account = params.provider_account;
  if (params.campaign) filter.campaign_id = params.campaign;
  if (params.q) filter.recipient_id = params.q;
  if (params.since) filter.created_after = params.since;
  if (params.until) filter.created_before = params.until;
  if (Object.keys(filter).length === 0) return { refused: 'Choose at least one filter: cancelling everything at once is refused.' };
  return { filter };
}
