/**
 * Trying the phone gateway without a phone: `herald start` with an android_gateway account and
 * `herald phone-sim` against it, as the README's section tells a user to. The simulated phone
 * registers with the private token, receives the SMS Herald offers, "sends" it and reports it
 * delivered. Runs the built dist/ (`npm run build`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killChildren, poll, postNotification, removeTempDirs, requireBuild, runHerald, spawnHerald, startHerald, tempDir } from './spawn.js';

requireBuild();

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

const TOKEN = 'try-the-gateway-0123456789';

describe('herald phone-sim', () => {
  it('registers with herald start, receives an SMS, sends it and reports it delivered', async () => {
    const dir = tempDir();
    const config = join(dir, 'herald.json');
    writeFileSync(
      config,
      JSON.stringify({ provider_accounts: [{ id: 'phones', kind: 'android_gateway', channel: 'sms', settings: { private_token_env: 'HERALD_PHONE_TOKEN' } }] }),
    );
    const { banner } = await startHerald(['--config', config, '--port', '0', '--data-dir', join(dir, 'data')], { env: { HERALD_PHONE_TOKEN: TOKEN } });
    const sim = spawnHerald(['phone-sim', '--server', `${banner.apiUrl}/mobile/v1`, '--send-delay-ms', '0', '--deliver-delay-ms', '0'], {
      env: { HERALD_PHONE_TOKEN: TOKEN },
    });
    await sim.waitFor(/device \S+ online/);
    const sent = await postNotification(
      banner.apiUrl,
      banner.key!,
      { recipient: { id: 'u1', phone: '+14155550123' }, purpose: 'otp', channels: ['sms'], content: { text: 'Your code is 424242' }, ttl_seconds: 300 },
      'phone-sim-1',
    );
    expect(sent.status, JSON.stringify(sent.json)).toBe(202);
    let last: unknown = null;
    const delivery = await poll(
      async () => {
        const res = await fetch(`${banner.apiUrl}/v1/notifications/${sent.json.id}`, { headers: { authorization: `Bearer ${banner.key}` } });
        const d = ((await res.json()) as { deliveries: Array<{ downstream_status: string | null }> }).deliveries[0]!;
        last = d;
        return d.downstream_status === 'delivered' ? d : undefined;
      },
      'the phone’s Delivered report',
      20_000,
      100,
    ).catch((err) => {
      throw new Error(`${(err as Error).message}; last ${JSON.stringify(last)}; phone-sim said:\n${sim.stdout()}${sim.stderr()}`);
    });
    expect(delivery).toMatchObject({ state: 'accepted', downstream_status: 'delivered' });
    expect(sim.stdout()).toMatch(/sent message [0-9a-f]{28}-1/);
    // The simulator never prints the number or the text.
    expect(sim.stdout()).not.toContain('4155550123');
    expect(sim.stdout()).not.toContain('424242');
  });

  it('a usage mistake is exit 2; a refused token is exit 1', async () => {
    expect((await runHerald(['phone-sim', '--token', 'x'])).code).toBe(2);
    expect((await runHerald(['phone-sim', '--server', 'http://127.0.0.1:9/mobile/v1'])).code).toBe(2);
    const down = await runHerald(['phone-sim', '--server', 'http://127.0.0.1:9/mobile/v1', '--token', 'x'], { timeoutMs: 10_000 });
    expect(down.code).toBe(1);
  });
});
