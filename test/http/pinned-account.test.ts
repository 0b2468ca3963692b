/** A notification may name the provider account of a channel; a resend keeps the accounts its first generation used. */
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxAccounts } from '../../src/config/config.js';
import { createHarness, otpBody, type Harness } from '../helpers/harness.js';

let h: Harness;
afterEach(() => h.close());

describe('provider_accounts on POST /v1/notifications', () => {
  it('sends through the named account instead of the channel’s first, and a resend keeps it', async () => {
    const accounts = sandboxAccounts('http://127.0.0.1:9');
    // A second SMS account after the default one: only a pin reaches it.
    const second = { ...accounts.find((a) => a.channel === 'sms')!, id: 'sms-backup' };
    h = await createHarness({ intake: { accounts: [...accounts, second] } });
    const defaulted = await h.send(otpBody());
    const pinned = await h.send(otpBody({ recipient: { id: 'user-2', phone: '+14155550124' }, provider_accounts: { sms: 'sms-backup' } }));
    expect(pinned.status).toBe(202);
    const first = await h.get(`/v1/notifications/${defaulted.json.id}`);
    expect(first.json.deliveries[0].provider_account).toBe('sandbox-sms');
    const read = await h.get(`/v1/notifications/${pinned.json.id}`);
    expect(read.json.deliveries[0].provider_account).toBe('sms-backup');
    const resent = await h.post(`/v1/notifications/${pinned.json.id}/resend`);
    expect(resent.status).toBe(202);
    const again = await h.get(`/v1/notifications/${resent.json.id}`);
    expect(again.json.deliveries[0].provider_account).toBe('sms-backup');
  });
});
