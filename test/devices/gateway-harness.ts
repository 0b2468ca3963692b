/**
 * A whole Herald whose SMS account is an Android gateway (kind android_gateway, keeping the
 * harness's `sandbox-sms` id), its device API listening on a real port, and simulated phones
 * that speak the SMSGate app's protocol over HTTP and SSE.
 */
import { expect, vi } from 'vitest';
import type { ProviderAccountConfig } from '../../src/providers/provider.js';
import { PhoneSim, type PhoneSimOptions } from '../../src/devices/phone-sim.js';
import { createHarness, type Driver, type Harness, type HarnessOptions } from '../helpers/harness.js';

export const PHONE_TOKEN = 'phone-private-token-0123456789';
export const ACCOUNT = 'sandbox-sms';
export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;

/** The harness's sms account made an android_gateway account with these settings (others untouched). */
export function gatewayAccount(a: ProviderAccountConfig, settings: Record<string, unknown> = {}): ProviderAccountConfig {
  if (a.channel !== 'sms') return a;
  const { base_url: _drop, ...rest } = a;
  return {
    ...rest,
    kind: 'android_gateway',
    settings: { private_token: PHONE_TOKEN, device_rate_per_minute: 600, device_burst: 100, ...settings },
    rate_per_second: 100,
    burst: 100,
    capabilities: { lookup: true, dedupes_by_key: false },
    evidence_window_seconds: 86_400,
  };
}

export interface GatewayHarnessOptions extends Omit<HarnessOptions, 'driver' | 'account'> {
  settings?: Record<string, unknown>;
  /** More of the gateway account's configuration (keyword_replies, ...). */
  gateway?: Partial<ProviderAccountConfig>;
}

export async function gatewayHarness(driver: Driver, opts: GatewayHarnessOptions = {}): Promise<Harness> {
  const { settings, gateway, ...rest } = opts;
  return createHarness({
    driver,
    ...rest,
    account: (a) => (a.channel === 'sms' ? { ...gatewayAccount(a, settings), ...gateway } : a),
    devices: { keepalive_seconds: 1, ...rest.devices },
  });
}

/** A simulated phone against the harness's device API, on the harness's clock. */
export function phoneFor(h: Harness, opts: Partial<PhoneSimOptions> = {}): PhoneSim {
  return new PhoneSim({ server: `${h.apiUrl}/mobile/v1`, privateToken: PHONE_TOKEN, reconnectMs: 20, now: () => h.clock.now(), ...opts });
}

/** Sends an SMS notification through the API; returns its id. */
export async function sendSms(h: Harness, over: Record<string, unknown> = {}): Promise<string> {
  const r = await h.send({
    recipient: { id: `user-${Math.random().toString(36).slice(2, 10)}`, phone: '+14155550123' },
    purpose: 'otp',
    channels: ['sms'],
    content: { text: 'Your code is 123456' },
    ttl_seconds: 600,
    ...over,
  });
  expect(r.status, JSON.stringify(r.json)).toBe(202);
  return r.json.id as string;
}

/** The first delivery of a notification, as the API shows it. */
export async function deliveryOf(h: Harness, notificationId: string): Promise<any> {
  const r = await h.get(`/v1/notifications/${notificationId}`);
  expect(r.status).toBe(200);
  return r.json.deliveries[0];
}

/** The current message id (the current attempt's offer) of a notification's delivery. */
export async function messageIdOf(h: Harness, notificationId: string): Promise<string> {
  const d = await deliveryOf(h, notificationId);
  const offer = await h.store.devices.currentOffer({ providerAccount: ACCOUNT, idempotencyKey: d.idempotency_key });
  expect(offer, 'an offer for the current attempt').not.toBeNull();
  return offer!.messageId;
}

/** Waits until the phone has nothing in flight and `check` holds. */
export async function until(sim: PhoneSim, check: () => void | Promise<void>): Promise<void> {
  await vi.waitFor(
    async () => {
      await sim.idle();
      await check();
    },
    { timeout: 5_000, interval: 10 },
  );
}
