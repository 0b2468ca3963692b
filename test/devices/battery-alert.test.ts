/**
 * The phone's battery, end to end on both drivers: the simulator pings as the SMSGate app does
 * (signed `system:ping` with its battery checks), its battery draining a point a ping. Below 15 %
 * and not charging, the operator alerter sends one `device_low_battery` firing round, and nothing
 * more while it keeps draining; on its charger, one recovery round follows. `GET /v1/devices`
 * (what the dashboard's device pages show) carries the level it last reported.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAlerts } from '../../src/config/alerts-config.js';
import { createAlerter } from '../../src/runtime/alerter-wiring.js';
import { generateWebhookSecret } from '../../src/signing/standard-webhooks.js';
import { DRIVERS, silentLogger, type Harness } from '../helpers/harness.js';
import { Receiver } from '../webhooks/receiver.js';
import { gatewayHarness, MINUTE, phoneFor } from './gateway-harness.js';

describe.each(DRIVERS)('a draining phone battery (%s)', (driver) => {
  let h: Harness;
  let hook: Receiver;
  const closers: Array<() => unknown> = [];
  beforeEach(async () => {
    h = await gatewayHarness(driver);
    hook = await new Receiver().open();
  });
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    await hook.close();
    await h.close();
  });

  const alerter = () => {
    const wired = createAlerter({
      config: {
        ...h.config,
        alerts: resolveAlerts({
          allow_networks: ['127.0.0.0/8'],
          webhooks: [{ url: hook.url, secret: generateWebhookSecret() }],
          // Only the battery: the simulated phone keeps no SSE connection, so it would also read as away.
          rules: { device_away: { enabled: false }, review_queue_growing: { enabled: false } },
        }),
      },
      accounts: h.config.provider_accounts,
      adapters: new Map(),
      store: h.store,
      clock: h.clock,
      logger: silentLogger,
    })!;
    closers.push(() => wired.close());
    return wired.alerter;
  };
  const rounds = () => hook.delivered.map((r) => (JSON.parse(r.body) as { alerts: Array<{ rule: string; kind: string; line: string }> }).alerts);
  const listed = async () => (await h.get('/v1/devices')).json.items[0];

  it('raises the low-battery alert once while it drains, and one recovery when it charges; the device shows the level', async () => {
    const sim = phoneFor(h, { name: 'pixel-7', battery: { percent: 16, drainPerPing: 1, chargePerPing: 5 } });
    await sim.register();
    expect((await listed()).phone_health).toBeNull();
    const a = alerter();
    const pingAndEvaluate = async () => {
      h.clock.advance(MINUTE);
      expect((await sim.ping()).status).toBe(200);
      return (await a.runOnce()).round;
    };
    // 16 %, 15 %: not below the threshold.
    expect(await pingAndEvaluate()).toBeNull();
    expect(await pingAndEvaluate()).toBeNull();
    expect(hook.delivered).toHaveLength(0);
    // 14 %: one firing round; 13 %, 12 %, 11 %: nothing more.
    expect(await pingAndEvaluate()).not.toBeNull();
    for (let i = 0; i < 3; i++) expect(await pingAndEvaluate()).toBeNull();
    expect(rounds()).toEqual([
      [expect.objectContaining({ rule: 'device_low_battery', kind: 'firing', line: expect.stringContaining('device pixel-7 battery at 14 %') })],
    ]);
    expect((await listed()).phone_health).toMatchObject({ battery_percent: 11, charging: false, internet: true, low_battery: true });

    // On its charger: the next report says charging (10 %, then rising), and one recovery follows.
    sim.setCharging(true);
    for (let i = 0; i < 20 && hook.delivered.length < 2; i++) await pingAndEvaluate();
    expect(rounds()).toEqual([
      [expect.objectContaining({ rule: 'device_low_battery', kind: 'firing' })],
      [expect.objectContaining({ rule: 'device_low_battery', kind: 'resolved' })],
    ]);
    expect((await listed()).phone_health).toMatchObject({ charging: true, low_battery: false });
    const detail = (await h.get(`/v1/devices/${sim.registration!.id}`)).json;
    expect(detail.phone_health.battery_percent).toBeGreaterThanOrEqual(10);
    // Plugged in and still charging: no new alert.
    await pingAndEvaluate();
    expect(hook.delivered).toHaveLength(2);
  });
});
