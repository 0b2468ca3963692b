/**
 * Herald serving HTTPS itself: the certificate and key come from files named in the config
 * (`tls.cert_file`, `tls.key_file`, PEM), read at start and watched, so a renewed certificate
 * (certbot, a mounted Kubernetes secret swapped atomically) is taken up without a restart: new
 * connections get the new one, open ones keep theirs. SIGHUP reloads at once (for renewals
 * that a stat poll would see late, or a deploy hook that wants it now). The listener is never
 * closed for a reload. A pair that does not load (half-written, key not matching) is refused and
 * the old one stays, with a warning.
 */
import { readFileSync, unwatchFile, watchFile, type StatWatcher } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Server } from 'node:https';
import type { Logger } from 'pino';
import { ConfigError, type TlsConfig } from '../config/config.js';

export interface TlsPair {
  key: Buffer;
  cert: Buffer;
}

/** Reads and checks the pair (the key must match the certificate); throws ConfigError naming the field. */
export function readTls(tls: TlsConfig): TlsPair {
  const read = (path: string, field: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new ConfigError(`tls.${field} ${path} cannot be read (${(err as { code?: string }).code ?? 'error'})`, `tls.${field}`);
    }
  };
  const pair = { cert: read(tls.cert_file, 'cert_file'), key: read(tls.key_file, 'key_file') };
  try {
    createSecureContext(pair);
  } catch (err) {
    throw new ConfigError(`tls: the certificate and key do not load together (${(err as Error).message})`, 'tls.cert_file');
  }
  return pair;
}

/** How often the files are looked at: a renewal is taken up within about this long. */
const WATCH_INTERVAL_MS = 1_000;

/** Watches the pair's files (and SIGHUP) and swaps the server's certificate when they change; returns a stop function. */
export function watchTls(server: Pick<Server, 'setSecureContext'>, tls: TlsConfig, logger: Logger, onReload?: () => void): () => void {
  let pending: NodeJS.Timeout | null = null;
  const reload = () => {
    // Both files usually change together: wait a moment so the pair is read whole.
    if (pending) clearTimeout(pending);
    pending = setTimeout(() => {
      pending = null;
      try {
        server.setSecureContext(readTls(tls));
        logger.info({ cert_file: tls.cert_file }, 'TLS certificate reloaded');
        onReload?.();
      } catch (err) {
        logger.warn({ err }, 'TLS certificate files changed but do not load; keeping the current certificate');
      }
    }, 200);
  };
  const watchers: StatWatcher[] = [tls.cert_file, tls.key_file].map((f) => watchFile(f, { interval: WATCH_INTERVAL_MS, persistent: false }, reload));
  const onHangup = () => {
    logger.info('SIGHUP: reloading the TLS certificate');
    reload();
  };
  process.on('SIGHUP', onHangup);
  return () => {
    process.off('SIGHUP', onHangup);
    if (pending) clearTimeout(pending);
    for (const w of watchers) w.unref();
    unwatchFile(tls.cert_file, reload);
    unwatchFile(tls.key_file, reload);
  };
}
