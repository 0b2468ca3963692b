/**
 * An allow list of networks that outgoing webhooks may reach although they are not public
 * (`webhooks.allow_networks` for customer webhooks, `alerts.allow_networks` for alert webhooks,
 * both through the SSRF address policy of src/webhooks/): the setting, and its one check that
 * every entry is a network in CIDR form.
 */
import { Type } from '@sinclair/typebox';
import ipaddr from 'ipaddr.js';
import { withDefault } from '../schema/setting.js';

/** The setting: CIDR networks, default none (only public addresses are reached). */
export function allowNetworksSetting(description: string) {
  return withDefault(Type.Array(Type.String({ minLength: 1 }), { description }), []);
}

/** The entries of an allow list that are not networks in CIDR form, with their index. */
export function notCidr(networks: readonly string[]): { index: number; entry: string }[] {
  return networks.flatMap((entry, index) => (ipaddr.isValidCIDR(entry) ? [] : [{ index, entry }]));
}
