/**
 * What the worker and the reconciler need to know about the provider accounts' staged rollout
 * (docs/operations.md#staged-rollout): each account's stage (`rollout`, default `full`), and how
 * an `unknown` answer is settled at `full` (a look-up by key where the adapter has one, else the
 * account's ambiguity policy for the purpose), which is the decision recorded for `full`.
 */
import { ambiguityPolicyFor, DEFAULT_ROLLOUT_STAGE, type Purpose, type RolloutStage, type UnknownSettlement } from '../domain/index.js';
import type { ProviderAccountConfig, ProviderAdapter } from '../providers/provider.js';

export class RolloutOfAccounts {
  constructor(
    private readonly configs: ReadonlyMap<string, ProviderAccountConfig>,
    private readonly adapters: ReadonlyMap<string, ProviderAdapter>,
  ) {}

  /** The account's stage; an account without configuration (tests with in-process fakes) is at `full`. */
  stageOf(providerAccount: string): RolloutStage {
    return this.configs.get(providerAccount)?.rollout ?? DEFAULT_ROLLOUT_STAGE;
  }

  /** How the reconciler settles an `unknown` of this account and purpose once it is at `full`. */
  unknownSettlement(d: { providerAccount: string; purpose: Purpose }): UnknownSettlement {
    const adapter = this.adapters.get(d.providerAccount);
    if (adapter?.capabilities.lookup && adapter.lookup) return 'reconcile_lookup';
    const a = this.configs.get(d.providerAccount);
    const policy = a ? ambiguityPolicyFor(d.purpose, a.ambiguity_policy, a.ambiguity_policies) : 'wait_for_evidence';
    // The reconciler never resends on a provider that would send twice (it waits for evidence instead).
    return policy === 'resend_same_key' && !adapter?.capabilities.dedupesByKey ? 'wait_for_evidence' : policy;
  }
}
