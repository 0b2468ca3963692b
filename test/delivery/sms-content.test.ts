/**
 * SMS content: a one-time code marked up for WebOTP and Android's SMS Retriever (the account's
 * format under the notification's own), on what the provider actually receives; and the
 * GSM-7 / UCS-2 segment count of that text shown on the delivery.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/config.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import type { ProviderAdapter, SubmitRequest } from '../../src/providers/provider.js';
import { createAdapter } from '../../src/runtime/node.js';
import { createHarness, DRIVERS, otpBody, silentLogger, type Harness, WORKER_DEFAULTS } from '../helpers/harness.js';

describe.each(DRIVERS)('SMS content on %s', (driver) => {
  let h: Harness;
  const opened: ProviderAdapter[] = [];
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((a) => a.close()));
    await h.close();
  });

  it('marks the code up for WebOTP and SMS Retriever from the account, the notification’s choice winning, and counts segments', async () => {
    h = await createHarness({
      driver,
      account: (a) => (a.channel === 'sms' ? { ...a, otp_sms_format: { webotp_domain: 'login.example.com', app_hash: 'FA+9qCX9VSu' } } : a),
    });
    const sent = await h.send(otpBody({ content: { text: 'Your code is 123456.', otp: { code: '123456' } } }));
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    const own = await h.send(
      otpBody({ recipient: { id: 'u2', phone: '+14155550124' }, content: { text: 'Ваш код 654321', otp: { code: '654321', webotp_domain: 'example.org' } } }),
    );
    expect(own.status).toBe(202);
    // What the SMS adapter is handed to put on the wire (the sandbox's ledger keeps no bodies).
    const texts: string[] = [];
    const adapters = new Map(
      h.config.provider_accounts.map((a) => {
        const real = createAdapter(a, h.config.public_url);
        opened.push(real);
        return [
          a.id,
          {
            ...real,
            kind: real.kind,
            capabilities: real.capabilities,
            close: () => real.close(),
            submit: (req: SubmitRequest) => (texts.push(req.content.text), real.submit(req)),
          },
        ] as const;
      }),
    );
    await new DeliveryWorker({
      store: h.store,
      adapters,
      clock: h.clock,
      logger: silentLogger,
      workerId: 'w-sms',
      settings: WORKER_DEFAULTS,
      accounts: h.config.provider_accounts,
    }).drain();
    expect(h.sandbox.ledger.entries({ channel: 'sms' })).toHaveLength(2);
    expect(texts.join('\n')).toContain('Your code is 123456.\n\nFA+9qCX9VSu\n@login.example.com #123456');
    expect(texts.join('\n')).toContain('Ваш код 654321\n\nFA+9qCX9VSu\n@example.org #654321');
    const first = (await h.get(`/v1/notifications/${sent.json.id}`)).json.deliveries[0];
    expect(first.sms).toEqual({ encoding: 'GSM-7', segments: 1, units: 'Your code is 123456.\n\nFA+9qCX9VSu\n@login.example.com #123456'.length });
    const cyrillic = (await h.get(`/v1/notifications/${own.json.id}`)).json.deliveries[0];
    expect(cyrillic.sms).toMatchObject({ encoding: 'UCS-2', segments: 1 });
  });

  it('refuses a code markup that cannot work, naming the field', async () => {
    h = await createHarness({ driver });
    for (const [content, field] of [
      [{ text: 'Your code is 123456', otp: { code: '999999' } }, 'content.otp.code'],
      [{ text: 'Your code is 123456', otp: { code: '123456', webotp_domain: 'https://example.com' } }, 'content.otp.webotp_domain'],
      [{ text: 'Your code is 123456', otp: { code: '123456', app_hash: 'not-a-hash!' } }, 'content.otp.app_hash'],
    ] as const) {
      const r = await h.send(otpBody({ content }));
      expect(r.status, JSON.stringify(content)).toBe(400);
      expect(r.json.errors[0].field).toBe(field);
    }
    const marketing = await h.send(otpBody({ purpose: 'marketing', content: { text: 'Code 123456', otp: { code: '123456' } } }));
    expect(marketing.json.errors[0].field).toBe('content.otp');
    expect(() =>
      resolveConfig({
        provider_accounts: [{ id: 'm', kind: 'sandbox', channel: 'email', base_url: 'http://127.0.0.1:1', otp_sms_format: { webotp_domain: 'example.com' } }],
      }),
    ).toThrow(/otp_sms_format applies only to an sms account/);
  });
});
