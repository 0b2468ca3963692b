/**
 * A provider kind: everything Herald needs to know about one way of sending (sandbox, smtp,
 * resend, ...) to configure, check, build and describe its accounts. Each kind's folder
 * exports one `ProviderKind`; `registry.ts` lists them, and nothing else in Herald switches
 * on `kind`.
 */
import type { TObject } from '@sinclair/typebox';
import type { Channel, PushTarget } from '../domain/index.js';
import type { DeviceGatewayPort } from './device-gateway-port.js';
import type { CallbackVerifier, InboundReceiver, ProviderAccountConfig, ProviderAdapter } from './provider.js';

/** One finding of `herald doctor`: what was asked of the provider and what it said. */
export interface DoctorCheck {
  /** What was checked, e.g. "credentials accepted", "sender domain verified". */
  name: string;
  ok: boolean;
  /** What the provider answered, for a person: never a credential, a destination or a body. */
  detail: string;
}

/** A configuration problem an account of this kind has, with the field it is about (e.g. `settings.host`). */
export interface AccountProblem {
  field: string;
  message: string;
}

/**
 * What a kind's accounts get when they do not say otherwise, taken from the provider's own
 * published guidance (each kind's `docs/providers/<kind>.md` gives the source).
 */
export type ProviderDefaults = Pick<ProviderAccountConfig, 'timeout_ms' | 'rate_per_second' | 'burst' | 'ambiguity_policy'> &
  Partial<Pick<ProviderAccountConfig, 'ambiguity_policies' | 'retry_ladders' | 'capabilities' | 'evidence_window_seconds' | 'max_html_bytes'>>;

/** What an adapter may need from the Herald it runs in. */
export interface AdapterContext {
  /**
   * Where this account's provider should post delivery callbacks
   * (`<public_url>/v1/callbacks/<account id>`), for providers that take a callback URL per
   * message (Twilio's StatusCallback); null when the public URL is not known.
   */
  callbackUrl: string | null;
  /**
   * The device gateway (src/devices/) an `android_gateway` account's adapter delegates to; absent
   * in a process that runs no gateway (then such an account's adapter cannot be built).
   */
  deviceGateway?: DeviceGatewayPort | null;
}

export interface ProviderKind {
  readonly kind: string;
  /** The channels an account of this kind can serve. */
  readonly channels: readonly Channel[];
  /** Push kinds: the push services this kind sends to (a subscription goes to a kind that serves its type). Absent: every one (the sandbox). */
  readonly pushTargets?: readonly PushTarget['type'][];
  /** One line for docs and `herald --help`: what this kind sends through. */
  readonly summary: string;
  readonly defaults: ProviderDefaults;
  /**
   * The account's `settings`, declared once in TypeBox (src/schema/setting.ts): its JSON Schema
   * (draft-07), its defaults and the kind's raw-settings type; null when the kind has none.
   * Composed into the configuration schema, so a bad setting fails at load naming its field.
   */
  readonly settingsSchema: TObject | null;
  /**
   * Rules the schema cannot express, checked at load: credentials present (in the environment
   * or a file), addresses that parse, the account's common fields this kind needs. Never
   * includes a credential's value in a message.
   */
  check(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[];
  /** Builds the account's adapter; throws only for a configuration error `check` lets through. */
  createAdapter(account: ProviderAccountConfig, context: AdapterContext): ProviderAdapter;
  /** The account's callback verifier, or null when it receives no callbacks. */
  createCallbackVerifier(account: ProviderAccountConfig): CallbackVerifier | null;
  /** The account's inbound-message webhook (POST /v1/callbacks/:id/inbound), or null; absent for kinds that receive no messages this way. */
  createInboundReceiver?(account: ProviderAccountConfig): InboundReceiver | null;
  /** The account's settings that are safe to show (`GET /v1/provider-accounts`): never a credential. */
  describe(account: ProviderAccountConfig): Record<string, unknown>;
  /**
   * Asks the provider, without sending anything, whether this account can send: the endpoint
   * answers, the credentials are accepted, the sender is verified. Never throws for a
   * provider's answer: each finding says what went wrong.
   */
  doctor(account: ProviderAccountConfig, signal: AbortSignal): Promise<DoctorCheck[]>;
}
