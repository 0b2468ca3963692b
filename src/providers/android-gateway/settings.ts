/**
 * The settings of an `android_gateway` account: the private token its phones register with, the
 * tenant its devices belong to, and the pacing Herald applies per device and per SIM. Defaults
 * and their sources are in docs/phone-gateway.md.
 */
import type { ProviderAccountConfig } from '../provider.js';
import { credentialSchema } from '../credentials.js';

/**
 * Android's own per-app check (SmsUsageMonitor): 30 SMS in any 30 minutes since Android 4.1, then
 * the user must confirm (Telerivet and FrontlineSMS document the same numbers). 0.8 per minute
 * with a burst of 5 stays under it: at most 5 − 1 + ⌈30 min / 75 s⌉ = 28 in any 30 minutes
 * (src/domain/rate-limit.ts `windowBound`). Raise both once the phone's limit is raised
 * (`adb shell settings put global sms_outgoing_check_max_count …`).
 */
export const DEFAULT_DEVICE_RATE_PER_MINUTE = 0.8;
export const DEFAULT_DEVICE_BURST = 5;
/** A phone on SSE pulls within a second of `MessageEnqueued`; one that has not pulled after this never got it. */
export const DEFAULT_PULL_TIMEOUT_S = 60;
/** How long a pulled but unreported message waits before the look-up re-offers it (the app reports within seconds). */
export const DEFAULT_REOFFER_AFTER_S = 60;
export const DEFAULT_TENANT = 'default';

export interface GatewaySettings {
  tenant: string;
  deviceRatePerMinute: number;
  deviceBurst: number;
  /** Null: no per-SIM limit (the phone picks the SIM per its own settings). */
  simRatePerMinute: number | null;
  simBurst: number;
  pullTimeoutMs: number;
  reofferAfterMs: number;
}

/** JSON Schema (draft-07) of the `settings` object. */
export const gatewaySettingsSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...credentialSchema(
      'private_token',
      'The registration secret the SMSGate app sends as its Private Token (Settings → Cloud Server); at least 16 characters. Unique per account: it says which account a phone joins.',
    ),
    tenant: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: 'The tenant whose devices these are (GET /v1/devices lists them for that tenant\'s API keys). Default "default".',
    },
    device_rate_per_minute: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 6000,
      description: "SMS per minute one phone is given, shared by every worker. Default 0.8 (under Android's stock 30 per 30 minutes).",
    },
    device_burst: { type: 'integer', minimum: 1, maximum: 1000, description: 'SMS one phone may be given at once above its rate. Default 5.' },
    sim_rate_per_minute: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 6000,
      description: 'SMS per minute per SIM; when set, Herald picks the SIM (simNumber) of each message. Default: no per-SIM limit.',
    },
    sim_burst: { type: 'integer', minimum: 1, maximum: 1000, description: 'Burst per SIM. Default: device_burst.' },
    pull_timeout_seconds: {
      type: 'integer',
      minimum: 5,
      maximum: 86400,
      description: 'An offer no phone pulled within this is withdrawn and retried (it provably never reached a phone). Default 60.',
    },
    reoffer_after_seconds: {
      type: 'integer',
      minimum: 5,
      maximum: 86400,
      description: 'A pulled message with no state report is re-offered under its same id after this (the look-up). Default 60.',
    },
  },
};

/** The account's settings with defaults applied (validated by the schema first). */
export function gatewaySettings(account: ProviderAccountConfig): GatewaySettings {
  const s = account.settings ?? {};
  const num = (k: string): number | undefined => {
    const v = s[k];
    return typeof v === 'number' ? v : undefined;
  };
  const deviceBurst = num('device_burst') ?? DEFAULT_DEVICE_BURST;
  return {
    tenant: typeof s.tenant === 'string' ? s.tenant : DEFAULT_TENANT,
    deviceRatePerMinute: num('device_rate_per_minute') ?? DEFAULT_DEVICE_RATE_PER_MINUTE,
    deviceBurst,
    simRatePerMinute: num('sim_rate_per_minute') ?? null,
    simBurst: num('sim_burst') ?? deviceBurst,
    pullTimeoutMs: (num('pull_timeout_seconds') ?? DEFAULT_PULL_TIMEOUT_S) * 1000,
    reofferAfterMs: (num('reoffer_after_seconds') ?? DEFAULT_REOFFER_AFTER_S) * 1000,
  };
}
