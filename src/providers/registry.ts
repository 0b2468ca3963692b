/**
 * Every provider kind Herald can send through, by name. Adding a provider is one folder under
 * `src/providers/` exporting a `ProviderKind`, and one line here.
 */
import type { ProviderKind } from './kinds.js';
import { apnsKind } from './apns/kind.js';
import { fcmKind } from './fcm/kind.js';
import { sandboxKind } from './sandbox/kind.js';
import { webPushKind } from './webpush/kind.js';

export const PROVIDER_KINDS: ReadonlyMap<string, ProviderKind> = new Map([sandboxKind, fcmKind, apnsKind, webPushKind].map((k) => [k.kind, k] as const));

/** The kind named `kind`; throws for an unknown one (configuration validation refuses those first). */
export function providerKind(kind: string): ProviderKind {
  const k = PROVIDER_KINDS.get(kind);
  if (!k) throw new Error(`unknown provider kind ${kind}; known: ${[...PROVIDER_KINDS.keys()].join(', ')}`);
  return k;
}
