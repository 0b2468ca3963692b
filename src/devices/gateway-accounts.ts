/**
 * The configured `android_gateway` accounts as the device gateway uses them: each one's private
 * token (read once, compared in constant time), settings, and the rate limits one device (and
 * one SIM) of it gets per lane. Two accounts with the same private token are refused: the token
 * is what says which account a registering phone joins.
 */
import { ConfigError } from '../config/config.js';
import { DEFAULT_LANES, laneBudgets, laneFor, type LaneConfig, type Purpose, type RateLimit } from '../domain/index.js';
import { readCredential } from '../providers/credentials.js';
import { gatewaySettings, type GatewaySettings } from '../providers/android-gateway/settings.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { secretsEqual } from './secrets.js';

export const GATEWAY_KIND = 'android_gateway';

/** The two limits one permit must pass: its lane's share of the rate, and the whole rate. */
export interface LaneLimits {
  lane: RateLimit;
  whole: RateLimit;
}

export interface GatewayAccount {
  account: ProviderAccountConfig;
  settings: GatewaySettings;
  lanes: readonly LaneConfig[];
  /** Per lane name: one device's limits. */
  deviceLimits: ReadonlyMap<string, LaneLimits>;
  /** Per lane name: one SIM's limits, or null when the account sets no per-SIM rate. */
  simLimits: ReadonlyMap<string, LaneLimits> | null;
}

/** Per lane, the limits of a rate split the way the account splits its own (auth keeps its share on a phone too). */
function perLane(lanes: readonly LaneConfig[], ratePerMinute: number, burst: number): Map<string, LaneLimits> {
  const rate = ratePerMinute / 60;
  // Concurrency does not matter here (one permit per message); any count that gives every lane a slot.
  const budgets = laneBudgets({ rate_per_second: rate, concurrency: 1_000 }, lanes);
  if (!budgets.ok) throw new Error(budgets.errors.map((e) => `${e.field} ${e.message}`).join('; '));
  const whole = { ratePerSecond: rate, burst };
  return new Map(budgets.value.map((b) => [b.name, { lane: { ratePerSecond: b.max_rate, burst }, whole }] as const));
}

export class GatewayAccounts {
  private readonly byId = new Map<string, GatewayAccount>();
  private readonly tokens: Array<{ token: string; id: string }> = [];

  /** Reads every android_gateway account of `accounts`; throws ConfigError for a token another account has. */
  constructor(accounts: readonly ProviderAccountConfig[], env: NodeJS.ProcessEnv = process.env) {
    accounts.forEach((account, i) => {
      if (account.kind !== GATEWAY_KIND) return;
      const token = readCredential(account.id, account.settings, 'private_token', env);
      const twin = this.tokens.find((t) => secretsEqual(t.token, token));
      if (twin) {
        throw new ConfigError(
          `provider_accounts[${i}].settings.private_token is also the private token of account ${twin.id}; each android_gateway account needs its own`,
          `provider_accounts[${i}].settings.private_token`,
        );
      }
      this.tokens.push({ token, id: account.id });
      const settings = gatewaySettings(account);
      const lanes = account.lanes ?? DEFAULT_LANES;
      this.byId.set(account.id, {
        account,
        settings,
        lanes,
        deviceLimits: perLane(lanes, settings.deviceRatePerMinute, settings.deviceBurst),
        simLimits: settings.simRatePerMinute === null ? null : perLane(lanes, settings.simRatePerMinute, settings.simBurst),
      });
    });
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: string): GatewayAccount | undefined {
    return this.byId.get(id);
  }

  all(): GatewayAccount[] {
    return [...this.byId.values()];
  }

  /** The account whose private token this is, or null; every account's token is compared, in constant time each. */
  byPrivateToken(token: string): GatewayAccount | null {
    let found: string | null = null;
    for (const t of this.tokens) if (secretsEqual(t.token, token) && found === null) found = t.id;
    return found === null ? null : (this.byId.get(found) ?? null);
  }

  /** The lane a purpose's messages take on this account's devices. */
  laneOf(g: GatewayAccount, purpose: Purpose): string {
    return laneFor(purpose, g.lanes).name;
  }
}
