/**
 * The one setting every push kind shares, `data_only`, and the rule it brings. A push kind's
 * default ambiguity policy is `resend_same_key` because a resend carries the same collapse
 * identity (push/identity.ts) and the device shows it in place of the first. That holds only
 * while the operating system (or Herald's documented service worker) shows the push. An app that
 * receives pushes as data and shows them itself may show a resend twice: such an account says
 * `data_only: true`, and must then declare that the provider does not deduplicate.
 */
import { Type } from '@sinclair/typebox';
import { withDefault } from '../../schema/setting.js';
import type { AccountProblem } from '../kinds.js';
import type { ProviderAccountConfig } from '../provider.js';

/**
 * The shared `data_only` setting (src/schema/setting.ts), with the kind's own description of what
 * it changes; false unless the account says so.
 */
export function dataOnlySetting(description: string) {
  return { data_only: withDefault(Type.Boolean({ description }), false) };
}

/** True when the account's settings say its app shows pushes itself. */
export function isDataOnly(account: ProviderAccountConfig): boolean {
  return account.settings?.data_only === true;
}

/**
 * A data-only account that still claims deduplication (the kind's default) or resends with the
 * same key: refused at load, naming the field to change, because a resend may then show twice.
 */
export function dataOnlyProblems(account: ProviderAccountConfig): AccountProblem[] {
  if (!isDataOnly(account)) return [];
  const why = 'an app that shows data-only pushes itself may show a resend twice';
  const problems: AccountProblem[] = [];
  if (account.capabilities?.dedupes_by_key === true) {
    problems.push({
      field: 'capabilities.dedupes_by_key',
      message: `must be false with settings.data_only: ${why} (set it false, and an ambiguity_policy such as wait_for_evidence or user_resend)`,
    });
  }
  const policies: Array<[string, string | undefined]> = [
    ['ambiguity_policy', account.ambiguity_policy],
    ...Object.entries(account.ambiguity_policies ?? {}).map(([purpose, p]) => [`ambiguity_policies.${purpose}`, p] as [string, string | undefined]),
  ];
  for (const [field, policy] of policies) {
    if (policy === 'resend_same_key')
      problems.push({ field, message: `cannot be resend_same_key with settings.data_only: ${why} (choose wait_for_evidence or user_resend)` });
  }
  return problems;
}
