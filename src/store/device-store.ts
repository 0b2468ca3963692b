/**
 * The devices part of the Store contract (`store.devices`): Android phones acting as SMS
 * gateways (the SMSGate app) with their logins, the offers Herald makes them (one row per
 * submission: the message id the phone sees), the phones' state reports waiting to be applied
 * to deliveries, presence, and the heartbeat sweeps. Builds on the core's deliveries; both
 * drivers implement it and pass test/store/device-conformance.ts.
 *
 * Rules every implementation keeps, beside the core's: a pull marks what it returns as pulled
 * in the same transaction (what one pull returned, no other pull returns until re-offered); an
 * offer is withdrawn only if it was never pulled; a report is applied with a guarded delivery
 * write and marks itself applied in the same transaction, or not at all.
 */
import type { DeliveryState, DownstreamStatus, LadderName, OfferState, PhoneState, Purpose, TerminalReason, Transition } from '../domain/index.js';
import type { DeliveryFacts, TransitionWrite, Unsubscribe } from './core-store.js';

/** Why a heartbeat sweep ran: a device came back after being away, or an operator asked (retry-failed). */
export const SWEEP_CAUSES = ['return', 'operator'] as const;
export type SweepCause = (typeof SWEEP_CAUSES)[number];

/** A SIM as the app reports it (phone number, carrier and ICCID arrive masked but the last 4 characters). */
export interface SimCard {
  slotIndex: number;
  /** 1-3: what an offer's simNumber names. */
  simNumber: number;
  phoneNumber: string | null;
  carrierName: string | null;
  iccid: string | null;
}

/** A login created with a device's first registration: what the app shows as Login / Password. */
export interface NewGatewayLogin {
  login: string;
  providerAccount: string;
  tenantId: string;
  /** scrypt, with its salt and parameters (src/devices/secrets.ts); never the password. */
  passwordHash: string;
  now: number;
}

export interface GatewayLogin {
  login: string;
  providerAccount: string;
  tenantId: string;
  passwordHash: string;
}

export interface NewDevice {
  id: string;
  tenantId: string;
  providerAccount: string;
  login: string;
  name: string;
  /** SHA-256 of the device token, hex; never the token. */
  tokenHash: string;
  /** Null: the app did not say. */
  simCards: SimCard[] | null;
  appVersion: string | null;
  now: number;
}

export interface DeviceRecord {
  id: string;
  tenantId: string;
  providerAccount: string;
  login: string;
  name: string;
  simCards: SimCard[] | null;
  appVersion: string | null;
  createdAt: number;
  lastSeenAt: number;
  /** Set when the device came back after being away, until its heartbeat sweep ran. */
  returnedAt: number | null;
  /** The last-seen time before that return. */
  awaySince: number | null;
}

/** A registration: the device, and the login it creates (null when it joins an existing login). */
export interface DeviceRegistration {
  login: NewGatewayLogin | null;
  device: NewDevice;
}

export interface DeviceUpdate {
  id: string;
  /** Null: unchanged. */
  simCards: SimCard[] | null;
  /** Null: unchanged. */
  appVersion: string | null;
  now: number;
}

/** A device call at `now`: last seen moves forward; `awayMs` is how long a silence counts as being away. */
export interface DeviceTouch {
  id: string;
  now: number;
  awayMs: number;
}

/** What a touch found: whether this call ends an absence longer than `awayMs` (the sweep is then due). */
export interface DevicePresence {
  lastSeenAt: number;
  returned: boolean;
  /** The last-seen time before the absence, when `returned`. */
  awaySince: number | null;
}

/** A one-time code for registering another phone to a login (`GET /user/code`), stored hashed. */
export interface NewLoginCode {
  codeHash: string;
  login: string;
  validUntil: number;
  now: number;
}

/** Per device of an account, what choosing among them needs. */
export interface DeviceLoad {
  deviceId: string;
  /** Offers the phone has not finished: not pulled yet, pulled without a report, or held (Pending, Processed). */
  queueDepth: number;
  /** Offers the phone reported Failed (before sending) since the window's start. */
  recentFailures: number;
}

export interface NewOffer {
  deliveryId: string;
  idempotencyKey: string;
  deviceId: string;
  providerAccount: string;
  simNumber: number | null;
  priority: number;
  validUntil: number;
  now: number;
}

export interface OfferRecord {
  id: number;
  messageId: string;
  deliveryId: string;
  seq: number;
  attemptNumber: number;
  deviceId: string;
  providerAccount: string;
  state: OfferState;
  simNumber: number | null;
  priority: number;
  validUntil: number;
  offeredAt: number;
  pulledAt: number | null;
  lastPulledAt: number | null;
  pullCount: number;
  reofferedAt: number | null;
  reofferCount: number;
  phoneState: PhoneState | null;
  phoneError: string | null;
  sent: boolean;
  reportedAt: number | null;
}

/** An offer with its delivery, as the operator API lists a device's messages. */
export interface DeviceMessageView extends OfferRecord {
  deliveryState: DeliveryState;
  terminalReason: TerminalReason | null;
  downstreamStatus: DownstreamStatus | null;
  purpose: Purpose;
  expiresAt: number;
  /** This offer is the delivery's current submission (a later one supersedes an older offer). */
  current: boolean;
}

/** Which of a device's messages to list: by Herald's offer state or by the phone's, newest first. */
export interface DeviceMessageFilter {
  state?: OfferState;
  phoneState?: PhoneState;
  /** Only each message's current offer: one row per message. */
  current?: boolean;
}

/** A pull: up to `limit` listed offers of the device, in the app's order, marked pulled. */
export interface OfferPull {
  deviceId: string;
  /** `lifo` (the app's default): newest first. `fifo`: priority first, then oldest first. */
  order: 'lifo' | 'fifo';
  limit: number;
  now: number;
}

/** What a notification asks of the offers of its SMS (metadata set by `/3rdparty/v1` or a `/v1` producer). */
export interface OfferPreferences {
  deviceId: string | null;
  simNumber: number | null;
}

/** A pulled offer with what the phone needs to send it. */
export interface PulledMessage {
  messageId: string;
  /** E.164; never logged. */
  phoneNumber: string;
  text: string;
  simNumber: number | null;
  /** False only when the notification asked for none (metadata `herald_delivery_report: false`). */
  withDeliveryReport: boolean;
  priority: number;
  validUntil: number;
  offeredAt: number;
}

/** One state report of one message, as the phone sent it (already validated). */
export interface PhoneReport {
  messageId: string;
  state: PhoneState;
  /** The report says the SMS left the phone (a `Sent` or `Delivered` in its history, or a delivery-report failure). */
  sent: boolean;
  /** The app's error token (classify.ts), never its raw text. */
  error: string | null;
}

export interface ReportBatch {
  deviceId: string;
  now: number;
  reports: PhoneReport[];
}

export interface RecordedReports {
  /** Reports that changed what Herald knows of a message. */
  recorded: number;
  /** Reports of ids this device was never offered (skipped, as the reference server does). */
  unknown: number;
}

/** A report not yet applied to its delivery, with what deciding needs. */
export interface UnappliedReport {
  offerId: number;
  messageId: string;
  reportSeq: number;
  phoneState: PhoneState;
  sent: boolean;
  phoneError: string | null;
  providerAccount: string;
  /** The offer is the delivery's current submission. */
  current: boolean;
  attemptNumber: number;
  delivery: DeliveryFacts & {
    terminalReason: TerminalReason | null;
    downstreamStatus: DownstreamStatus | null;
    purpose: Purpose;
    retryLadder: LadderName | null;
  };
}

/**
 * A report applied: the delivery write it causes (guarded by state, fencing token and
 * downstream status; null when it changes nothing) and the offer's report marked applied.
 */
export interface ReportWrite {
  offerId: number;
  reportSeq: number;
  deliveryId: string;
  expect: { state: DeliveryState; leaseVersion: number; downstreamStatus: DownstreamStatus | null } | null;
  transition: Transition | null;
  downstreamStatus: DownstreamStatus | null;
  providerMessageId: string | null;
  /** For a not-sent report: the phone's classified failure, the delivery's last error code. */
  lastErrorCode: string | null;
  /** The attempt whose ambiguity the report settled (resolution `callback`). */
  resolvesAttempt: number | null;
  now: number;
}

/** The current offer of a delivery, found by Herald's reference (the look-up). */
export interface CurrentOfferQuery {
  providerAccount: string;
  /** The attempt's key on the account (after a move, the account's own: the delivery is found by its delivery key). */
  idempotencyKey: string;
}

/** What a device's heartbeat sweep may touch, from `since` on, at `now`. */
export interface SweepQuery {
  deviceId: string;
  providerAccount: string;
  since: number;
  now: number;
  limit: number;
}

/** A failed delivery a sweep would retry (with its ladder facts for `decide`). */
export type SweepFailed = DeliveryFacts & { terminalReason: TerminalReason | null };

export interface SweepCandidates {
  /** Definitely failed (the phone said so, or no device could take it) and not expired: retried. */
  failed: SweepFailed[];
  /** Unknown (or unresolved), not expired, its current offer on this device: re-offered under the same id. */
  unknown: Array<{ offerId: number; messageId: string; deliveryId: string }>;
  /** Failed or unknown ones of the window that expired: left alone. */
  expired: number;
}

/** A sweep's writes, in one transaction: the replays (guarded), the re-offers, and the record. */
export interface SweepWrite {
  deviceId: string;
  cause: SweepCause;
  /** For `return`: the return being swept; the sweep applies only if the device still shows it. */
  returnedAt: number | null;
  awaySince: number | null;
  /** Clear the device's return marker (the last batch of this return). */
  finishReturn: boolean;
  retries: Array<{ write: TransitionWrite; fromReason: string | null }>;
  reofferIds: number[];
  skippedExpired: number;
  requestedBy: string;
  now: number;
}

export interface SweepRecord {
  id: number;
  deviceId: string;
  tenantId: string;
  providerAccount: string;
  cause: SweepCause;
  awaySince: number | null;
  returnedAt: number | null;
  sweptAt: number;
  retried: number;
  reoffered: number;
  skippedExpired: number;
}

/** Told a device id with something new to pull, and which process (`origin`) signalled it. */
export type OfferListener = (deviceId: string, origin: string) => void;

/** `store.devices`; implemented by sqlite/devices.ts and postgres/devices.ts. */
export interface DeviceStore {
  /** Writes the device (and the login it creates) in one transaction. */
  registerDevice(r: DeviceRegistration): Promise<void>;
  /** The device whose token hashes to `tokenHash`, or null. */
  findDeviceByToken(tokenHash: string): Promise<DeviceRecord | null>;
  getDevice(id: string): Promise<DeviceRecord | null>;
  /** An account's devices (or a tenant's, or every device), oldest first. */
  listDevices(filter: { tenantId?: string; providerAccount?: string }): Promise<DeviceRecord[]>;
  /** The app's PATCH /device: SIM cards (and app version) as now reported; false for an unknown id. */
  updateDevice(r: DeviceUpdate): Promise<boolean>;
  /** Moves last-seen to `now` (never back) and says whether this call ended an absence longer than `awayMs`. */
  touchDevice(r: DeviceTouch): Promise<DevicePresence | null>;
  /** Devices that came back and wait for their heartbeat sweep, oldest return first. */
  listReturnedDevices(limit: number): Promise<DeviceRecord[]>;

  findLogin(login: string): Promise<GatewayLogin | null>;
  /** Replaces a login's password hash; false for an unknown login. */
  setLoginPassword(login: string, passwordHash: string): Promise<boolean>;
  createLoginCode(r: NewLoginCode): Promise<void>;
  /** Spends a one-time code: the login it was issued for, once, before it expires; else null. */
  useLoginCode(codeHash: string, now: number): Promise<string | null>;

  /**
   * What a delivery's notification asks of its offers: the device it pins them to (metadata
   * `herald_device_id`) and the SIM (metadata `herald_sim_number`, 1-3), each null when not asked.
   */
  offerPreferences(deliveryId: string): Promise<OfferPreferences>;
  /** Per device of the account: unfinished offers (offered since `since`) and reported failures since `since`. */
  deviceLoads(providerAccount: string, since: number): Promise<DeviceLoad[]>;
  /**
   * Records the next offer of a delivery (sequence = the delivery's offers so far + 1, for its
   * current attempt) and returns it with its message id. Throws StoreConflictError if an offer
   * for the same submission raced it.
   */
  createOffer(o: NewOffer): Promise<OfferRecord>;
  /** The device's listed offers (`offered`, `reoffered`) whose validity has not passed, marked pulled, in the app's order. */
  pullOffers(r: OfferPull): Promise<PulledMessage[]>;
  /** Folds each report into its offer (forward only); reports of other devices' or unknown ids are skipped. */
  recordReports(r: ReportBatch): Promise<RecordedReports>;
  /** Reports not applied yet, oldest first, whose delivery is not `submitting`. */
  listUnappliedReports(limit: number): Promise<UnappliedReport[]>;
  /** Applies each write in its own savepoint; each result says whether it applied (false: the delivery or the report moved on). */
  applyReports(writes: ReportWrite[]): Promise<boolean[]>;

  /** The offer of the delivery's current attempt, or null when that attempt recorded none. */
  currentOffer(q: CurrentOfferQuery): Promise<OfferRecord | null>;
  /** Takes back an offer the phone never pulled; false when it was pulled (or moved on) meanwhile. */
  withdrawOffer(offerId: number, now: number): Promise<boolean>;
  /** Lists pulled (or already re-offered) offers again under their ids; returns how many. */
  reofferOffers(offerIds: number[], now: number): Promise<number>;
  getOfferByMessageId(messageId: string): Promise<DeviceMessageView | null>;
  /** Every offer of one delivery, oldest first: the message ids it went out under and what each phone said. */
  listDeliveryOffers(deliveryId: string): Promise<DeviceMessageView[]>;
  /** A device's offers, newest first, after `beforeId`. */
  listDeviceMessages(deviceId: string, filter: DeviceMessageFilter, beforeId: number | null, limit: number): Promise<DeviceMessageView[]>;

  /** What a device's heartbeat sweep retries and re-offers (see SweepCandidates). */
  sweepCandidates(q: SweepQuery): Promise<SweepCandidates>;
  /**
   * Writes a sweep in one transaction; null (nothing written) when `returnedAt` is given and the
   * device no longer shows that return (another sweeper took it). Replays a guard refuses are
   * skipped, not counted.
   */
  recordSweep(w: SweepWrite): Promise<SweepRecord | null>;
  /** A device's sweeps, newest first. */
  listSweeps(deviceId: string, limit: number): Promise<SweepRecord[]>;

  /** Tells listeners in other processes that `deviceIds` have something new to pull (best effort); `origin` names the sender. */
  signalOffers(deviceIds: string[], origin: string): Promise<void>;
  /** Hears signalOffers of every process (PostgreSQL: LISTEN); SQLite runs in one process and hears nothing. */
  listenForOffers(onOffer: OfferListener): Promise<Unsubscribe>;
}
