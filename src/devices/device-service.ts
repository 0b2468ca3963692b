/**
 * What the device API does, apart from HTTP: registration (private token, login and password, or
 * a one-time code), device authentication with presence, the pull, state reports, login codes
 * and password changes. Each method answers as the reference server does (status and a
 * `{message}` body for errors); the route plugin only moves bytes. Nothing is half-written: a
 * body is validated whole before any write, and each write is one store transaction.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { StoreConflictError, type DeviceRecord, type PulledMessage, type Store } from '../store/store.js';
import type { GatewayAccounts } from './gateway-accounts.js';
import { parseDevicePatch, parsePasswordChange, parseRegister, parseStateReports } from './mobile-requests.js';
import { hashPassword, newDeviceId, newDeviceToken, newLogin, newLoginCode, newPassword, sha256Hex, verifyPassword } from './secrets.js';

/** An answer of the device API: a status and a JSON body (none for 204). */
export interface MobileAnswer {
  status: number;
  body?: unknown;
}

const answer = (status: number, body?: unknown): MobileAnswer => (body === undefined ? { status } : { status, body });
/** The reference server's error body: `{"message": "..."}` (go-infra-fx's fiber error handler). */
const refuse = (status: number, message: string): MobileAnswer => ({ status, body: { message } });
const UNAUTHORIZED = refuse(401, 'Unauthorized');

/** A registration's credentials, as the Authorization header carries them. */
export type Credentials =
  { scheme: 'bearer'; token: string } | { scheme: 'basic'; login: string; password: string } | { scheme: 'code'; code: string } | { scheme: 'none' };

/** Reads `Bearer …`, `Basic base64(login:password)` or `Code …` (schemes case-insensitive). */
export function readCredentials(header: string | undefined): Credentials {
  const m = /^(\w+) +(\S+)$/.exec(header ?? '');
  if (!m) return { scheme: 'none' };
  const scheme = m[1]!.toLowerCase();
  const value = m[2]!;
  if (scheme === 'bearer') return { scheme: 'bearer', token: value };
  if (scheme === 'code') return { scheme: 'code', code: value };
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return { scheme: 'none' };
    return { scheme: 'basic', login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return { scheme: 'none' };
}

/** The app version in the app's User-Agent (`me.capcom.smsgateway/<version>`), or null. */
export function appVersionOf(userAgent: string | undefined): string | null {
  const m = /^me\.capcom\.smsgateway\/([\w.+-]{1,40})/.exec(userAgent ?? '');
  return m ? m[1]! : null;
}

/** A one-time code is valid this long (GET /user/code answers when). */
export const LOGIN_CODE_TTL_MS = 5 * 60_000;
/** Presence writes per device are at most this often (reads between them stay within it of the truth). */
const TOUCH_EVERY_MS = 5_000;

export interface DeviceServiceOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  accounts: GatewayAccounts;
  awayMs: number;
  /** A device came back after being away: its heartbeat sweep is due. */
  onReturn?: (deviceId: string) => void;
  /** New reports were recorded: the report applier may run now. */
  onReports?: () => void;
}

export class DeviceService {
  private readonly lastTouch = new Map<string, number>();

  constructor(private readonly opts: DeviceServiceOptions) {}

  /** `POST /device`: a new device, joining the account its credentials name. */
  async register(credentials: Credentials, body: unknown, userAgent: string | undefined): Promise<MobileAnswer> {
    const { store, clock, accounts } = this.opts;
    const now = clock.now();
    let account: { id: string; tenant: string } | null = null;
    let login: string | null = null;
    let password: string | undefined;
    if (credentials.scheme === 'bearer') {
      const g = accounts.byPrivateToken(credentials.token);
      if (g) account = { id: g.account.id, tenant: g.settings.tenant };
    } else if (credentials.scheme === 'basic') {
      const l = await store.devices.findLogin(credentials.login);
      if (l && accounts.get(l.providerAccount) && verifyPassword(credentials.password, l.passwordHash)) {
        account = { id: l.providerAccount, tenant: l.tenantId };
        login = l.login;
      }
    } else if (credentials.scheme === 'code') {
      const spent = await store.devices.useLoginCode(sha256Hex(credentials.code), now);
      const l = spent ? await store.devices.findLogin(spent) : null;
      if (l && accounts.get(l.providerAccount)) {
        account = { id: l.providerAccount, tenant: l.tenantId };
        login = l.login;
      }
    }
    if (!account) return UNAUTHORIZED;
    const parsed = parseRegister(body);
    if (!parsed.ok) return refuse(400, parsed.message);
    const token = newDeviceToken();
    // A login collision (1 in 2 billion per pair) is retried with a new one.
    for (let tries = 0; tries < 3; tries++) {
      const id = newDeviceId();
      const newLoginName = login === null ? newLogin() : null;
      if (newLoginName !== null) password = newPassword();
      try {
        await store.devices.registerDevice({
          login:
            newLoginName === null
              ? null
              : { login: newLoginName, providerAccount: account.id, tenantId: account.tenant, passwordHash: hashPassword(password!), now },
          device: {
            id,
            tenantId: account.tenant,
            providerAccount: account.id,
            login: newLoginName ?? login!,
            name: parsed.value.name,
            tokenHash: sha256Hex(token),
            simCards: parsed.value.simCards,
            appVersion: appVersionOf(userAgent),
            now,
          },
        });
        this.lastTouch.set(id, now);
        this.opts.logger.info({ deviceId: id, providerAccount: account.id, via: credentials.scheme }, 'device registered');
        return answer(201, { id, token, login: newLoginName ?? login, ...(newLoginName !== null ? { password } : {}) });
      } catch (err) {
        if (!(err instanceof StoreConflictError)) throw err;
      }
    }
    return refuse(500, 'could not allocate a device id');
  }

  /** The device a `Bearer <device token>` names, marked seen; null for anything else. */
  async authenticate(credentials: Credentials): Promise<DeviceRecord | null> {
    if (credentials.scheme !== 'bearer') return null;
    const device = await this.opts.store.devices.findDeviceByToken(sha256Hex(credentials.token));
    // A device of an account no longer configured is not let in: the app re-registers on 401.
    if (!device || !this.opts.accounts.get(device.providerAccount)) return null;
    await this.touch(device.id);
    return device;
  }

  /** Presence: every authenticated call and every SSE keep-alive. A return after an absence starts the heartbeat sweep. */
  async touch(deviceId: string): Promise<void> {
    const now = this.opts.clock.now();
    const last = this.lastTouch.get(deviceId);
    // Any gap too short to be an absence is written at most every 5 s; a longer one always is.
    if (last !== undefined && now >= last && now - last < Math.min(TOUCH_EVERY_MS, this.opts.awayMs)) return;
    this.lastTouch.set(deviceId, now);
    const presence = await this.opts.store.devices.touchDevice({ id: deviceId, now, awayMs: this.opts.awayMs });
    if (presence?.returned) {
      this.opts.logger.info({ deviceId, awaySince: presence.awaySince }, 'device came back after being away; heartbeat sweep due');
      this.opts.onReturn?.(deviceId);
    }
  }

  /** `GET /device`: the caller's IP (what the app reads) and the device, when the token names one. */
  getDevice(device: DeviceRecord | null, ip: string): MobileAnswer {
    return answer(200, {
      externalIp: ip,
      ...(device
        ? {
            device: {
              id: device.id,
              name: device.name,
              createdAt: new Date(device.createdAt).toISOString(),
              lastSeen: new Date(device.lastSeenAt).toISOString(),
            },
          }
        : {}),
    });
  }

  /** `PATCH /device`: SIM cards as now reported; 403 for another device's id. */
  async patchDevice(device: DeviceRecord, body: unknown, userAgent: string | undefined): Promise<MobileAnswer> {
    const parsed = parseDevicePatch(body);
    if (!parsed.ok) return refuse(400, parsed.message);
    if (parsed.value.id !== device.id) return refuse(403, 'Forbidden');
    await this.opts.store.devices.updateDevice({
      id: device.id,
      simCards: parsed.value.simCards,
      appVersion: appVersionOf(userAgent),
      now: this.opts.clock.now(),
    });
    return answer(204);
  }

  /** `GET /message?order=`: at most 100 pending messages, marked pulled, in the app's shape. */
  async pull(device: DeviceRecord, order: unknown): Promise<MobileAnswer> {
    if (order !== undefined && order !== 'lifo' && order !== 'fifo') return refuse(400, 'order must be lifo or fifo');
    const now = this.opts.clock.now();
    const pulled = await this.opts.store.devices.pullOffers({ deviceId: device.id, order: order === 'fifo' ? 'fifo' : 'lifo', limit: 100, now });
    return answer(200, pulled.map(toMobileMessage));
  }

  /** `PATCH /message`: the phone's state reports, validated whole, recorded in one transaction. */
  async report(device: DeviceRecord, body: unknown): Promise<MobileAnswer> {
    const parsed = parseStateReports(body);
    if (!parsed.ok) return refuse(400, parsed.message);
    const r = await this.opts.store.devices.recordReports({ deviceId: device.id, now: this.opts.clock.now(), reports: parsed.value });
    if (r.recorded > 0) this.opts.onReports?.();
    return answer(204);
  }

  /** `GET /user/code` (Basic login:password): a one-time code that registers another phone to this login. */
  async userCode(credentials: Credentials): Promise<MobileAnswer> {
    if (credentials.scheme !== 'basic') return UNAUTHORIZED;
    const l = await this.opts.store.devices.findLogin(credentials.login);
    if (!l || !verifyPassword(credentials.password, l.passwordHash)) return UNAUTHORIZED;
    const now = this.opts.clock.now();
    const code = newLoginCode();
    const validUntil = now + LOGIN_CODE_TTL_MS;
    await this.opts.store.devices.createLoginCode({ codeHash: sha256Hex(code), login: l.login, validUntil, now });
    return answer(200, { code, validUntil: new Date(validUntil).toISOString() });
  }

  /** `PATCH /user/password`: the device's login gets a new password; 401 when the current one is wrong. */
  async changePassword(device: DeviceRecord, body: unknown): Promise<MobileAnswer> {
    const parsed = parsePasswordChange(body);
    if (!parsed.ok) return refuse(400, parsed.message);
    const l = await this.opts.store.devices.findLogin(device.login);
    if (!l || !verifyPassword(parsed.value.currentPassword, l.passwordHash)) return refuse(401, 'failed to change password');
    await this.opts.store.devices.setLoginPassword(l.login, hashPassword(parsed.value.newPassword));
    return answer(204);
  }
}

/**
 * A pulled offer as the app reads it (app `GatewayApi.Message`, client-go `MobileMessage`):
 * `textMessage` and, for older app versions, the deprecated `message`; one phone number; dates
 * as `Date.toISOString()` writes them, which the app's Gson pattern `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` reads.
 */
export function toMobileMessage(m: PulledMessage): Record<string, unknown> {
  return {
    id: m.messageId,
    message: m.text,
    textMessage: { text: m.text },
    phoneNumbers: [m.phoneNumber],
    ...(m.simNumber === null ? {} : { simNumber: m.simNumber }),
    withDeliveryReport: m.withDeliveryReport,
    isEncrypted: false,
    priority: m.priority,
    validUntil: new Date(m.validUntil).toISOString(),
    state: 'Pending',
    createdAt: new Date(m.offeredAt).toISOString(),
  };
}
