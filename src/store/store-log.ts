/**
 * Where the store reports an error it handles itself, with no caller to tell (a NOTIFY that
 * failed, a ROLLBACK on a broken connection, a LISTEN connection that dropped): once, with what
 * it was doing and ids only. Never a destination, a message body or a row's values: an error is
 * reduced to its name, code and message (PostgreSQL's `detail`, which quotes row values, is left out).
 * The runtime passes the process logger (pino's `warn(fields, message)` fits); without one the
 * store stays quiet (tests, one-off CLI commands).
 */
export interface StoreLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  /** A recovery from what a warning reported (pino's `info` fits); absent: not logged. */
  info?(fields: Record<string, unknown>, message: string): void;
}

/** The logger of a store opened without one. */
export const QUIET_STORE_LOGGER: StoreLogger = { warn() {}, info() {} };

/** An error as a log line may carry it: name, code and message, nothing a row held. */
export function errorFields(err: unknown): { error: { name: string; code: string | null; message: string } } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { error: { name: err.name, code: typeof code === 'string' ? code : null, message: err.message } };
  }
  return { error: { name: 'unknown', code: null, message: String(err) } };
}
