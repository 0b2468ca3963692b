/**
 * The adapter of an `android_gateway` account. It sends nothing itself: a phone pulls its work.
 * `submit` hands the delivery to the device gateway, which records an offer for a chosen device
 * and signals the device's connections; the answer is `unknown` (the phone may pull and send it
 * at any moment) until the phone's own reports say otherwise. `lookup` asks the gateway again,
 * which re-offers under the same message id: the app never sends an id it already holds.
 */
import type { SubmitOutcome } from '../../domain/index.js';
import type { DeviceGatewayPort } from '../device-gateway-port.js';
import type { LookupRequest, LookupResult, ProviderAccountConfig, ProviderAdapter, SubmitRequest } from '../provider.js';
import { describeUnexpected } from '../outbound-http/transport-failure.js';

/** Builds the adapter; throws when the process runs no device gateway (a configuration error no retry can fix). */
export function createAndroidGatewayAdapter(account: ProviderAccountConfig, gateway: DeviceGatewayPort | null | undefined): ProviderAdapter {
  if (!gateway) {
    throw new Error(`provider account ${account.id}: an android_gateway account needs the device gateway, which this process does not run`);
  }
  return {
    kind: 'android_gateway',
    // Look-up: the gateway can always say whether an offer never reached a phone, and re-offer one
    // that did. No dedupe by key for a resend: a new submission after a failure is a new message id.
    capabilities: { lookup: true, dedupesByKey: false },
    async submit(request: SubmitRequest): Promise<SubmitOutcome> {
      if (request.channel !== 'sms') throw new Error(`provider account ${account.id} sends sms, not ${request.channel}`);
      try {
        return await gateway.offer(account, request);
      } catch (error) {
        // The offer may have been written before the failure: the phone may have it.
        return { kind: 'unknown', code: 'gateway_error', message: describeUnexpected(error) };
      }
    },
    async lookup(request: LookupRequest): Promise<LookupResult> {
      try {
        return await gateway.lookup(account, request);
      } catch (error) {
        return { kind: 'error', code: 'gateway_error', message: describeUnexpected(error) };
      }
    },
    close: async () => {},
  };
}
