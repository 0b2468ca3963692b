/**
 * Every provider kind Herald can send through, by name. Adding a provider is one folder under
 * `src/providers/` exporting a `ProviderKind`, and one line here.
 */
import type { ProviderKind } from './kinds.js';
import { androidGatewayKind } from './android-gateway/kind.js';
import { sandboxKind } from './sandbox/kind.js';

export const PROVIDER_KINDS: ReadonlyMap<string, ProviderKind> = new Map([sandboxKind, androidGatewayKind].map((k) => [k.kind, k] as const));

/** The kind named `kind`; throws for an unknown one (configuration validation refuses those first). */
export function providerKind(kind: string): ProviderKind {
  const k = PROVIDER_KINDS.get(kind);
  if (!k) throw new Error(`unknown provider kind ${kind}; known: ${[...PROVIDER_KINDS.keys()].join(', ')}`);
  return k;
}
