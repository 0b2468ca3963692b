/**
 * Herald serving HTTPS itself from certificate files, and taking up a renewed certificate
 * without a restart: a real TLS client (node:https, trusting only the test's own certificates)
 * sees the first certificate, the files are replaced, and new connections see the second.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import pino from 'pino';
import selfsigned from 'selfsigned';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/config.js';
import { createHeraldNode, type HeraldNode } from '../../src/runtime/node.js';

const logger = pino({ level: 'silent' });
const dirs: string[] = [];
let node: HeraldNode | null = null;
afterEach(async () => {
  await node?.close();
  node = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function certificate(cn: string): Promise<{ cert: string; key: string }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: cn }], {
    notAfterDate: new Date(Date.now() + 2 * 86_400_000),
    keySize: 2048,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

/** GETs /healthz over TLS trusting `ca` only; resolves with the status, the HSTS header and the served certificate's subject. */
function get(url: string, ca: string[]): Promise<{ status: number; hsts: string | undefined; cn: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca, agent: false }, (res) => {
      const cn = String((res.socket as TLSSocket).getPeerCertificate().subject.CN);
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, hsts: res.headers['strict-transport-security'], cn }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS from certificate files', () => {
  it('serves the configured certificate with HSTS, and a renewed one without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'));
    dirs.push(dir);
    const first = await certificate('herald-first');
    const second = await certificate('herald-second');
    writeFileSync(join(dir, 'cert.pem'), first.cert);
    writeFileSync(join(dir, 'key.pem'), first.key);
    const config = resolveConfig(
      { port: 0, data_dir: join(dir, 'data'), tls: { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'key.pem') } },
      { sandbox: false },
    );
    expect(config.public_url).toMatch(/^https:\/\//);
    let reloads = 0;
    node = await createHeraldNode({ config, roles: ['api'], logger, onTlsReload: () => reloads++ });
    const url = (await node.start())!;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const before = await get(url, [first.cert, second.cert]);
    expect(before).toEqual({ status: 200, hsts: 'max-age=31536000', cn: 'herald-first' });

    // A half-written pair (new certificate, old key) is refused; the first certificate stays.
    writeFileSync(join(dir, 'cert.pem'), second.cert);
    await vi.waitFor(() => expect(reloads).toBe(0), { timeout: 2_500 });
    writeFileSync(join(dir, 'key.pem'), second.key);
    await vi.waitFor(() => expect(reloads).toBe(1), { timeout: 10_000, interval: 50 });
    expect(await get(url, [first.cert, second.cert])).toMatchObject({ status: 200, cn: 'herald-second' });
  });

  it('refuses at start a certificate file that is missing or a key that does not match it, naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-tls-'));
    dirs.push(dir);
    const a = await certificate('a');
    const b = await certificate('b');
    writeFileSync(join(dir, 'cert.pem'), a.cert);
    writeFileSync(join(dir, 'other-key.pem'), b.key);
    const missing = resolveConfig({ port: 0, tls: { cert_file: join(dir, 'nope.pem'), key_file: join(dir, 'other-key.pem') } }, { sandbox: false });
    await expect(createHeraldNode({ config: missing, roles: ['api'], logger })).rejects.toMatchObject({
      field: 'tls.cert_file',
      message: expect.stringContaining('cannot be read'),
    });
    const mismatched = resolveConfig({ port: 0, tls: { cert_file: join(dir, 'cert.pem'), key_file: join(dir, 'other-key.pem') } }, { sandbox: false });
    const err = await createHeraldNode({ config: mismatched, roles: ['api'], logger }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toContain('do not load together');
  });
});
