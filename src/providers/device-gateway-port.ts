/**
 * The seam between an `android_gateway` account's adapter and the device gateway of the Herald
 * it runs in (src/devices/). A phone is not called: it pulls. So the adapter's `submit` records
 * an offer for a chosen device and its `lookup` re-offers under the same message id; both need
 * Herald's store and the phones' connections, which providers/ may not import, so the runtime
 * hands the adapter this port (AdapterContext.deviceGateway).
 */
import type { SubmitOutcome } from '../domain/index.js';
import type { LookupRequest, LookupResult, ProviderAccountConfig, SubmitRequest } from './provider.js';

export interface DeviceGatewayPort {
  /**
   * Offers one delivery to a device of the account: `unknown` once an offer is recorded (the
   * phone may pull and send it at any moment: evidence settles it), `retryable` when no device
   * can take it now (nothing offered), `throttled` when pacing holds it back, `permanent` for a
   * pin to a device the account does not have. Never throws for a device's state.
   */
  offer(account: ProviderAccountConfig, request: SubmitRequest): Promise<SubmitOutcome>;
  /**
   * The look-up of an `unknown` delivery's current offer: `not_found` only when the phone
   * provably never received it (never pulled, now withdrawn); otherwise `error`, after
   * re-offering a pulled but unreported message under its same id (the phone re-reports what it
   * holds instead of sending again). Reports themselves are applied by the report applier.
   */
  lookup(account: ProviderAccountConfig, request: LookupRequest): Promise<LookupResult>;
}
