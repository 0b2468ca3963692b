/**
 * `herald tenants` and `herald keys` in-process on a SQLite data dir: a tenant and its first key,
 * account assignment, keys listed, created with scopes and expiry, rotated and revoked, each
 * change on the audit trail with the `cli` actor. (The built binary's help is test/cli/help.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keysCommand } from '../../src/cli/commands/keys.js';
import { tenantsCommand } from '../../src/cli/commands/tenants.js';
import { hashApiKey } from '../../src/tenants/api-keys.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { resolveConfig } from '../../src/config/config.js';

describe('herald tenants and herald keys', () => {
  let dir: string;
  let out: string[];
  const savedUrl = process.env.DATABASE_URL;
  beforeEach(() => {
    // The commands open the configured store: SQLite in the data dir, not the suite's PostgreSQL.
    delete process.env.DATABASE_URL;
    dir = mkdtempSync(join(tmpdir(), 'herald-cli-'));
    out = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    if (savedUrl !== undefined) process.env.DATABASE_URL = savedUrl;
    rmSync(dir, { recursive: true, force: true });
  });
  const run = async (fn: (argv: string[]) => Promise<number>, argv: string[]) => {
    out.length = 0;
    const code = await fn([...argv, '--data-dir', dir]);
    return { code, stdout: out.join('') };
  };
  const withStore = async <T>(f: (s: ReturnType<typeof openSqliteStore>) => Promise<T>): Promise<T> => {
    const s = openSqliteStore({ path: join(dir, 'herald.db') });
    try {
      return await f(s);
    } finally {
      await s.close();
    }
  };

  it('creates a tenant with its first key, assigns an account, and manages keys, all on the audit trail', async () => {
    const created = await run(tenantsCommand, ['create', '--id', 'acme', '--name', 'Acme']);
    expect(created.code).toBe(0);
    const firstKey = created.stdout.trim();
    expect(firstKey).toMatch(/^hld_sk_/);
    await expect(run(tenantsCommand, ['create', '--id', 'acme', '--name', 'Again'])).rejects.toThrow(/already exists/);
    await expect(run(tenantsCommand, ['create', '--id', 'Bad Id', '--name', 'x'])).rejects.toThrow(/--id/);
    const config = join(dir, 'herald.json');
    writeFileSync(config, JSON.stringify({ provider_accounts: [{ id: 'sandbox-sms', kind: 'sandbox', channel: 'sms', base_url: 'http://127.0.0.1:1' }] }));
    const account = 'sandbox-sms';
    expect(resolveConfig(JSON.parse(readFileSync(config, 'utf8')), { dataDir: dir }).provider_accounts.map((a) => a.id)).toEqual([account]);
    for (const bad of ['0', '1.5', 'half', ''])
      await expect(run(tenantsCommand, ['assign', '--id', 'acme', '--account', account, '--rate-share', bad, '--config', config])).rejects.toThrow(
        /--rate-share/,
      );
    const assigned = await run(tenantsCommand, ['assign', '--id', 'acme', '--account', account, '--rate-share', '0.25', '--config', config]);
    expect(assigned.stdout).toContain('with a rate share of 0.25');
    await expect(run(tenantsCommand, ['assign', '--id', 'default', '--account', account, '--rate-share', '0.8', '--config', config])).rejects.toThrow(/past 1/);
    await expect(run(tenantsCommand, ['assign', '--id', 'acme', '--account', 'nope', '--config', config])).rejects.toThrow(/no provider account/);
    expect((await run(tenantsCommand, ['list'])).stdout).toMatch(new RegExp(`^acme  "Acme"  .*accounts=${account}@0.25$`, 'm'));

    const made = await run(keysCommand, ['create', '--tenant', 'acme', '--label', 'ci', '--scope', 'send,read', '--expires', '2099-01-01T00:00:00Z']);
    const key = made.stdout.trim();
    await expect(run(keysCommand, ['create', '--scope', 'root'])).rejects.toThrow(/--scope/);
    const found = await withStore((s) => s.findApiKey(hashApiKey(key)));
    expect(found).toMatchObject({ tenantId: 'acme', scopes: ['send', 'read'], expiresAt: Date.parse('2099-01-01T00:00:00Z') });
    const listed = (await run(keysCommand, ['list', '--tenant', 'acme'])).stdout;
    expect(listed).toContain(`${found!.id}  "ci"  send,read`);
    expect(listed).not.toContain(key);

    const rotated = (await run(keysCommand, ['rotate', '--tenant', 'acme', '--id', found!.id])).stdout.trim();
    expect(await withStore((s) => s.findApiKey(hashApiKey(key)))).toBeNull();
    const next = await withStore((s) => s.findApiKey(hashApiKey(rotated)));
    expect(next?.scopes).toEqual(['send', 'read']);
    expect((await run(keysCommand, ['revoke', '--tenant', 'acme', '--id', next!.id])).stdout).toContain('revoked=');
    expect(await withStore((s) => s.findApiKey(hashApiKey(rotated)))).toBeNull();
    expect(await withStore((s) => s.findApiKey(hashApiKey(firstKey)))).not.toBeNull();
    await expect(run(keysCommand, ['revoke', '--tenant', 'acme'])).rejects.toThrow(/--id/);

    const acmeTrail = await withStore((s) => s.audit.list('acme', null, 10));
    expect(acmeTrail.items.map((a) => a.action)).toEqual(['key_revoke', 'key_rotate', 'key_create']);
    expect(acmeTrail.items[0]!.actor.kind).toBe('cli');
    const operatorTrail = await withStore((s) => s.audit.list('default', null, 10));
    expect(operatorTrail.items.map((a) => [a.action, a.subjectId])).toEqual([
      ['account_assign', 'acme'],
      ['tenant_create', 'acme'],
    ]);
  });

  it('keys for the default tenant get every scope by default, the operator’s included', async () => {
    const key = (await run(keysCommand, ['create'])).stdout.trim();
    expect((await withStore((s) => s.findApiKey(hashApiKey(key))))?.scopes).toContain('tenants');
  });
});
