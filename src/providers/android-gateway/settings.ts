/**
 * The settings of an `android_gateway` account: the private token its phones register with, the
 * tenant its devices belong to, and the pacing Herald applies per device and per SIM. Defaults
 * and their sources are in docs/phone-gateway.md.
 */
import { Type } from '@sinclair/typebox';
import { section, settle, withDefault } from '../../schema/setting.js';
import type { ProviderAccountConfig } from '../provider.js';
import { credentialSettings } from '../credentials.js';

/**
 * Android's own per-app check (SmsUsageMonitor): 30 SMS in any 30 minutes since Android 4.1, then
 * the user must confirm (Telerivet and FrontlineSMS document the same numbers). 0.8 per minute
 * with a burst of 5 stays under it: at most 5 − 1 + ⌈30 min / 75 s⌉ = 28 in any 30 minutes
 * (src/domain/rate-limit.ts `windowBound`). Raise both once the phone's limit is raised
 * (`adb shell settings put global sms_outgoing_check_max_count …`).
 */
const DEFAULT_DEVICE_RATE_PER_MINUTE = 0.8;
const DEFAULT_DEVICE_BURST = 5;
/** A phone on SSE pulls within a second of `MessageEnqueued`; one that has not pulled after this never got it. */
const DEFAULT_PULL_TIMEOUT_S = 60;
/** How long a pulled but unreported message waits before the look-up re-offers it (the app reports within seconds). */
const DEFAULT_REOFFER_AFTER_S = 60;

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

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const gatewaySettingsSchema = section({
  ...credentialSettings(
    'private_token',
    'The registration secret the SMSGate app sends as its Private Token (Settings → Cloud Server); at least 16 characters. Unique per account: it says which account a phone joins.',
  ),
  tenant: withDefault(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: "The tenant whose devices these are (GET /v1/devices lists them for that tenant's API keys).",
    }),
    'default',
  ),
  device_rate_per_minute: withDefault(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 6000,
      description: "SMS per minute one phone is given, shared by every worker; the default stays under Android's stock 30 per 30 minutes.",
    }),
    DEFAULT_DEVICE_RATE_PER_MINUTE,
  ),
  device_burst: withDefault(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'SMS one phone may be given at once above its rate.' }),
    DEFAULT_DEVICE_BURST,
  ),
  sim_rate_per_minute: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 6000,
      description: 'SMS per minute per SIM; when set, Herald picks the SIM (simNumber) of each message. Default: no per-SIM limit.',
    }),
  ),
  // Its default is device_burst's value, so it is filled where the settings are read.
  sim_burst: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Burst per SIM. Default: device_burst.' })),
  pull_timeout_seconds: withDefault(
    Type.Integer({
      minimum: 5,
      maximum: 86400,
      description: 'An offer no phone pulled within this is withdrawn and retried (it provably never reached a phone).',
    }),
    DEFAULT_PULL_TIMEOUT_S,
  ),
  reoffer_after_seconds: withDefault(
    Type.Integer({
      minimum: 5,
      maximum: 86400,
      description: 'A pulled message with no state report is re-offered under its same id after this (the look-up).',
    }),
    DEFAULT_REOFFER_AFTER_S,
  ),
});

/** The account's settings with defaults applied (validated by the schema first). */
export function gatewaySettings(account: ProviderAccountConfig): GatewaySettings {
  const s = settle(gatewaySettingsSchema, account.settings);
  return {
    tenant: s.tenant,
    deviceRatePerMinute: s.device_rate_per_minute,
    deviceBurst: s.device_burst,
    simRatePerMinute: s.sim_rate_per_minute,
    simBurst: s.sim_burst ?? s.device_burst,
    pullTimeoutMs: s.pull_timeout_seconds * 1000,
    reofferAfterMs: s.reoffer_after_seconds * 1000,
  };
}
