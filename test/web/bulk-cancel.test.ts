/** The messages page's bulk cancel (web/src/bulk-cancel-filter.ts): which list filters become POST /v1/deliveries/cancel's filter, and which refuse it. */
import { describe, expect, it } from 'vitest';
import { cancelFilterFor } from '../../web/src/bulk-cancel-filter.js';

describe('cancelFilterFor', () => {
  it("maps the list's filters onto bulk cancel's", () => {
    expect(
      cancelFilterFor({
        state: 'ready',
        purpose: 'marketing',
        provider_account: 'sms-main',
        campaign: 'cmp_1',
        q: 'user-7',
        since: '2026-12-01T00:00:00.000Z',
        until: '2026-12-02T00:00:00.000Z',
      }),
    ).toEqual({
      filter: {
        state: 'ready',
        purpose: 'marketing',
        provider_account: 'sms-main',
        campaign_id: 'cmp_1',
        recipient_id: 'user-7',
        created_after: '2026-12-01T00:00:00.000Z',
        created_before: '2026-12-02T00:00:00.000Z',
      },
    });
  });

  it('refuses a selection it would widen, a state that cannot be cancelled, and no filter at all', () => {
    expect(cancelFilterFor({ purpose: 'marketing', channel: 'sms' })).toEqual({ refused: expect.stringContaining('channel') });
    expect(cancelFilterFor({ terminal_reason: 'rejected' })).toEqual({ refused: expect.stringContaining('terminal reason') });
    // The Failed preset: cancelling the retryable rows of an account would reach the ones not failed too.
    expect(cancelFilterFor({ failed: 'true', state: 'retryable', provider_account: 'sms-main' })).toEqual({ refused: expect.stringContaining('failed') });
    expect(cancelFilterFor({ state: 'unknown' })).toEqual({ refused: expect.stringContaining('not unknown') });
    expect(cancelFilterFor({ q: 'ntf_01J' })).toEqual({ refused: expect.stringContaining('recipient') });
    expect(cancelFilterFor({})).toEqual({ refused: expect.stringContaining('at least one filter') });
  });
});
