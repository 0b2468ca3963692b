/**
 * Where each delivery of a new notification goes: one account per channel, the one the
 * notification pins, else the first of the tenant's route that it may use (healthy ones first),
 * else the channel's first configured account it may use; a push channel without a token goes to
 * each of the recipient's push subscriptions through an account that serves its push service.
 * Refusals are HeraldErrors with stable codes (`no_provider_account`,
 * `provider_account_not_assigned`). Intake's, and campaign fan-out's through intake.
 */
import { PUSH_TARGET_TYPES, routeCandidates, type Channel, type Purpose, type PushTarget, type Route, type RouteHealthView } from '../domain/index.js';
import { HeraldError } from '../errors.js';
import type { ProviderAccountConfig } from '../providers/provider.js';
import { providerKind } from '../providers/registry.js';
import type { ActivePushTarget } from '../store/push-store.js';
import { mayUseAccount, type AccountAccess } from '../store/store.js';
import { destinationFor, type NotificationRequest } from './notification-request.js';

/** Where one delivery goes: its channel, account and destination, and the push subscription it serves, if any. */
export interface DeliveryRoute {
  channel: Channel;
  account: ProviderAccountConfig;
  destination: string;
  subscriptionId: string | null;
}

/** Whether the tenant may send through an account. */
export type AccountFilter = (account: ProviderAccountConfig) => boolean;

/** Which route a delivery takes: its tenant's, for its purpose. */
export interface RouteKey {
  tenantId: string;
  purpose: Purpose;
  /**
   * An account of the route to take when the tenant may use it (campaign fan-out spreads a
   * campaign over the route's healthy accounts: campaigns/route-capacity.ts). Not a pin: failover
   * still moves the delivery along its route.
   */
  prefer?: string;
}

/** Which accounts the tenant may send through; without `access` (no read was made) every account. */
export function accountFilter(tenantId: string, access: AccountAccess | null): AccountFilter {
  return access === null ? () => true : (a) => mayUseAccount(access, tenantId, a.id);
}

export class AccountRouting {
  /**
   * `routing`: the configured routes (docs/routing.md) and their health as this process last read
   * it (the route evaluator); without it, every channel takes its first account.
   */
  constructor(
    private readonly accounts: readonly ProviderAccountConfig[],
    private readonly routing?: { routes: readonly Route[]; health: RouteHealthView },
  ) {}

  /**
   * Where each delivery goes: one route per channel, except a push channel without
   * `push_token`, which goes to each of the recipient's active push subscriptions (`subscriptions`)
   * through the first push account that serves its push service, or, with fallback (one
   * delivery per channel), to the most recently registered one.
   */
  routesFor(body: NotificationRequest, subscriptions: ActivePushTarget[] | null, may: AccountFilter, on: RouteKey): DeliveryRoute[] {
    return body.channels.flatMap((channel): DeliveryRoute[] => {
      const pinned = body.provider_accounts?.[channel];
      if (channel !== 'push' || subscriptions === null) {
        return [{ channel, account: this.accountFor(channel, pinned, may, on), destination: destinationFor(channel, body.recipient)!, subscriptionId: null }];
      }
      const targets = body.fallback_after_seconds !== undefined ? subscriptions.slice(0, 1) : subscriptions;
      const routes = targets.flatMap((t): DeliveryRoute[] => {
        const account = this.pushAccountFor(t.type, pinned, may, on);
        return account ? [{ channel, account, destination: t.target, subscriptionId: t.id }] : [];
      });
      if (routes.length === 0) {
        const types = [...new Set(targets.map((t) => t.type))].join(', ');
        throw new HeraldError('no_provider_account', `no push provider account serves the recipient's push subscriptions (${types})`, [
          { field: pinned === undefined ? 'channels' : 'provider_accounts.push', message: `push has no provider account for ${types}` },
        ]);
      }
      return routes;
    });
  }

  /**
   * The account that sends a channel: the one the notification names, else the first of its route
   * the tenant may use (routeCandidates: a demoted account only when no other is left), else the
   * first configured one the tenant may use (`may`: assigned to it, see mayUseAccount).
   */
  private accountFor(channel: Channel, pinned: string | undefined, may: AccountFilter, on?: RouteKey): ProviderAccountConfig {
    if (pinned !== undefined) {
      const named = this.accounts.find((a) => a.id === pinned);
      if (!named || named.channel !== channel) {
        throw new HeraldError('no_provider_account', `no provider account ${pinned} sends the ${channel} channel`, [
          {
            field: `provider_accounts.${channel}`,
            message: named ? `${pinned} sends ${named.channel}, not ${channel}` : `no provider account is called ${pinned}`,
          },
        ]);
      }
      if (!may(named)) throw notAssigned(channel, pinned, `provider_accounts.${channel}`);
      return named;
    }
    const candidates = on ? this.routedAccounts(on, channel).filter(may) : [];
    const routed = candidates.find((a) => a.id === on?.prefer) ?? candidates[0];
    if (routed) return routed;
    const forChannel = this.accounts.filter((a) => a.channel === channel);
    const account = forChannel.find(may);
    if (!account) {
      if (forChannel.length > 0) throw notAssigned(channel, forChannel.map((a) => a.id).join(', '), 'channels');
      throw new HeraldError('no_provider_account', `no provider account is configured for the ${channel} channel`, [
        { field: 'channels', message: `${channel} has no provider account` },
      ]);
    }
    return account;
  }

  /** The configured accounts of the delivery's route, in the order to try them; empty without a route. */
  private routedAccounts(on: RouteKey, channel: Channel): ProviderAccountConfig[] {
    const r = this.routing;
    const ids = r ? routeCandidates(r.routes, r.health, on.tenantId, channel, on.purpose) : null;
    return (ids ?? []).flatMap((id) => this.accounts.filter((a) => a.id === id && a.channel === channel));
  }

  /** The account a push subscription of this service goes through: the pinned one if it serves it, else the first of the route that does, else the first push account that does. */
  private pushAccountFor(type: PushTarget['type'], pinned: string | undefined, may: AccountFilter, on: RouteKey): ProviderAccountConfig | null {
    const serves = (a: ProviderAccountConfig) => a.channel === 'push' && (providerKind(a.kind).pushTargets ?? PUSH_TARGET_TYPES).includes(type);
    if (pinned !== undefined) {
      const named = this.accountFor('push', pinned, may);
      return serves(named) ? named : null;
    }
    return this.routedAccounts(on, 'push').find((a) => serves(a) && may(a)) ?? this.accounts.find((a) => serves(a) && may(a)) ?? null;
  }
}

function notAssigned(channel: Channel, accounts: string, field: string): HeraldError {
  return new HeraldError('provider_account_not_assigned', `provider account ${accounts} (${channel}) is not assigned to this tenant`, [
    { field, message: `${channel}: ${accounts} is not assigned to this tenant` },
  ]);
}
