/**
 * Every provider kind Herald can send through, by name. Adding a provider is one folder under
 * `src/providers/` exporting a `ProviderKind`, and one line here.
 */
import type { ProviderKind } from './kinds.js';
import { androidGatewayKind } from './android-gateway/kind.js';
import { apnsKind } from './apns/kind.js';
import { fcmKind } from './fcm/kind.js';
import { postmarkKind } from './postmark/kind.js';
import { resendKind } from './resend/kind.js';
import { sandboxKind } from './sandbox/kind.js';
import { sesKind } from './ses/kind.js';
import { smtpKind } from './smtp/kind.js';
import { telnyxKind } from './telnyx/kind.js';
import { twilioKind } from './twilio/kind.js';
import { webPushKind } from './webpush/kind.js';

export const PROVIDER_KINDS: ReadonlyMap<string, ProviderKind> = new Map(
  [sandboxKind, resendKind, postmarkKind, smtpKind, sesKind, twilioKind, telnyxKind, fcmKind, apnsKind, webPushKind, androidGatewayKind].map(
    (k) => [k.kind, k] as const,
  ),
);

/** The kind named `kind`; throws for an unknown one (configuration validation refuses those first). */
export function providerKind(kind: string): ProviderKind {
  const k = PROVIDER_KINDS.get(kind);
  if (!k) throw new Error(`unknown provider kind ${kind}; known: ${[...PROVIDER_KINDS.keys()].join(', ')}`);
  return k;
}
