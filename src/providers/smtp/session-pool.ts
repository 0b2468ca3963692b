/**
 * Pooled SMTP sessions for one account: at most `size` connections, each connected,
 * upgraded and authenticated once and then reused for message after message (one at a time),
 * as nodemailer's own pool does. Herald pools sessions itself rather than use nodemailer's
 * `pool: true` transport because that transport re-queues a message on another connection
 * by its own rules and reports every transport failure as `command: 'CONN'`: Herald must see
 * each attempt and know how far it got (smtp-session.ts).
 *
 * A call waits for a free session within its own deadline; no session free in time is a
 * `queue` timeout (nothing was sent). A session is dropped after any transport failure, after
 * a 421, after `MAX_MESSAGES`, and after `IDLE_MS` unused.
 */
import type { SmtpFailure } from './classify.js';
import { openSession, resetSession, type CallLimits, type OpenSession } from './smtp-session.js';
import type { SmtpSettings } from './settings.js';

// 100 messages per connection, nodemailer's pool default (`maxMessages`): relays count per
// session (Postfix `smtpd_recipient_limit` is per message, but many hosted relays cap
// messages per connection), and a periodic reconnect re-reads DNS and re-checks the certificate.
const MAX_MESSAGES = 100;
// Closed (with QUIT) after 30 s idle, well before a server's own idle timeout (RFC 5321
// §4.5.3.2.7: at least 5 minutes) drops it under a send.
const IDLE_MS = 30_000;
// RSET is answered at once by any live server; one that does not within 5 s is not reused.
const RESET_TIMEOUT_MS = 5_000;

interface PooledSession {
  session: OpenSession;
  messages: number;
  alive: boolean;
  idleTimer: NodeJS.Timeout | null;
}

/** A session lent to one send; give it back with `release`. */
export interface Lease {
  readonly session: OpenSession;
  /** True when the session was used before: a failure before its first reply may be a server's idle close. */
  readonly reused: boolean;
}

export type AcquireResult = { ok: true; lease: Lease } | { ok: false; failure: SmtpFailure };

export class SessionPool {
  private readonly idle: PooledSession[] = [];
  private readonly lent = new Map<OpenSession, PooledSession>();
  /** Sessions counted against the size: opening, lent or idle. */
  private count = 0;
  private readonly waiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly settings: SmtpSettings,
    private readonly open: (settings: SmtpSettings, limits: CallLimits) => ReturnType<typeof openSession> = openSession,
  ) {}

  /** A session for one send: an idle one, a new one while below the size, else the first given back in time. */
  async acquire(limits: CallLimits): Promise<AcquireResult> {
    for (;;) {
      if (this.closed) return { ok: false, failure: { kind: 'transport', step: 'queue', cause: 'aborted' } };
      const idle = this.idle.pop();
      if (idle !== undefined) {
        if (idle.idleTimer !== null) clearTimeout(idle.idleTimer);
        idle.idleTimer = null;
        if (!idle.alive) continue;
        this.lent.set(idle.session, idle);
        return { ok: true, lease: { session: idle.session, reused: idle.messages > 0 } };
      }
      if (this.count < this.settings.poolSize) return this.openNew(limits);
      const woken = await this.waitForSlot(limits);
      if (woken !== 'woken') return { ok: false, failure: { kind: 'transport', step: 'queue', cause: woken } };
    }
  }

  private async openNew(limits: CallLimits): Promise<AcquireResult> {
    this.count++;
    const opened = await this.open(this.settings, limits);
    if (!opened.ok) {
      this.count--;
      this.wakeOne();
      return opened;
    }
    const pooled: PooledSession = { session: opened.session, messages: 0, alive: true, idleTimer: null };
    opened.session.connection.once('end', () => this.dropped(pooled));
    if (this.closed) {
      opened.session.connection.close();
      return { ok: false, failure: { kind: 'transport', step: 'queue', cause: 'aborted' } };
    }
    this.lent.set(pooled.session, pooled);
    return { ok: true, lease: { session: pooled.session, reused: false } };
  }

  /**
   * Gives a session back after one send: `clean` (a message went through, or none was
   * started) ready for the next, `reset` (the server refused the envelope or the message)
   * usable once RSET succeeds within `resetWithinMs`, `close` never again.
   */
  async release(lease: Lease, state: 'clean' | 'reset' | 'close', resetWithinMs = RESET_TIMEOUT_MS): Promise<void> {
    const pooled = this.lent.get(lease.session);
    if (pooled === undefined) return;
    this.lent.delete(lease.session);
    pooled.messages++;
    if (!pooled.alive || state === 'close' || pooled.messages >= MAX_MESSAGES || this.closed) {
      this.retire(pooled, pooled.messages >= MAX_MESSAGES && state !== 'close');
      return;
    }
    if (state === 'reset' && !(await resetSession(pooled.session, Math.min(RESET_TIMEOUT_MS, resetWithinMs)))) {
      this.retire(pooled);
      return;
    }
    if (!pooled.alive || this.closed) {
      this.retire(pooled);
      return;
    }
    this.park(pooled);
  }

  /** Makes a session available to the next send, and closes it after IDLE_MS unused. */
  private park(pooled: PooledSession): void {
    pooled.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(pooled);
      if (at < 0) return;
      this.idle.splice(at, 1);
      pooled.idleTimer = null;
      this.retire(pooled, true);
    }, IDLE_MS);
    pooled.idleTimer.unref();
    this.idle.push(pooled);
    this.wakeOne();
  }

  /** Closes every session and refuses new sends; sends in flight finish, then their sessions close. */
  async close(): Promise<void> {
    this.closed = true;
    for (const pooled of this.idle.splice(0)) this.retire(pooled, true);
    for (const wake of this.waiters.splice(0)) wake();
  }

  private retire(pooled: PooledSession, quit = false): void {
    if (pooled.idleTimer !== null) clearTimeout(pooled.idleTimer);
    pooled.idleTimer = null;
    if (pooled.alive) {
      if (quit) pooled.session.connection.quit();
      else pooled.session.connection.close();
    }
    this.dropped(pooled);
  }

  /** A session's connection ended (closed by Herald or by the server): its slot is free. */
  private dropped(pooled: PooledSession): void {
    if (!pooled.alive) return;
    pooled.alive = false;
    this.count--;
    const at = this.idle.indexOf(pooled);
    if (at >= 0) this.idle.splice(at, 1);
    this.wakeOne();
  }

  private wakeOne(): void {
    this.waiters.shift()?.();
  }

  /** Waits until a session is given back or a slot frees, or the call's deadline or signal ends the wait. */
  private waitForSlot(limits: CallLimits): Promise<'woken' | 'timeout' | 'aborted'> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (why: 'woken' | 'timeout' | 'aborted'): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        const at = this.waiters.indexOf(wake);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(why);
      };
      const wake = (): void => finish('woken');
      const onAbort = (): void => finish('aborted');
      const timer = setTimeout(() => finish('timeout'), Math.max(0, limits.until - Date.now()));
      if (limits.signal?.aborted === true) return finish('aborted');
      limits.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(wake);
    });
  }
}
