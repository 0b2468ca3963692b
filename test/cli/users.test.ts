/**
 * `herald users`: create (password from an environment variable or stdin, never argv), list,
 * revoke-sessions; the user then signs in at POST /v1/session with that password, and
 * revoke-sessions ends the session. Runs the built dist/ (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { buildApp } from '../../src/http/app.js';
import { ReplayService } from '../../src/delivery/replay-service.js';
import { IntakeService } from '../../src/intake/intake-service.js';
import { databasePath } from '../../src/runtime/node.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { silentLogger } from '../helpers/harness.js';
import { killChildren, removeTempDirs, requireBuild, ROOT, runHerald, tempDir } from './spawn.js';

requireBuild();

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

const PASSWORD = 'a long enough passphrase';

/** `herald users create` with the password on stdin (spawnHerald's stdin is closed). */
function createWithStdin(dir: string, username: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [join(ROOT, 'bin/herald.js'), 'users', 'create', username, '--role', 'viewer', '--data-dir', dir], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
    proc.stdin.end(input);
  });
}

describe('herald users', () => {
  it('creates users, lists them, refuses bad input, and revokes a signed-in user’s sessions', async () => {
    const dir = tempDir();
    const env = { DASH_PW: PASSWORD };
    const created = await runHerald(['users', 'create', 'ada', '--role', 'operator', '--password-env', 'DASH_PW', '--data-dir', dir], { env });
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created ada \(operator, usr_[0-9A-Z]{26}\)$/m);
    expect(created.stdout + created.stderr).not.toContain(PASSWORD);
    const viaStdin = await createWithStdin(dir, 'vic', `${PASSWORD}\n`);
    expect(viaStdin.code, viaStdin.stderr).toBe(0);

    const again = await runHerald(['users', 'create', 'ada', '--role', 'viewer', '--password-env', 'DASH_PW', '--data-dir', dir], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already exists');
    const refusals: Array<[string[], RegExp]> = [
      [['users', 'create', 'bob', '--role', 'root', '--password-env', 'DASH_PW'], /--role must be one of admin, operator, viewer/],
      [['users', 'create', 'bob', '--role', 'viewer', '--password-env', 'UNSET_VAR'], /UNSET_VAR, which is not set/],
      [['users', 'create', 'bob', '--role', 'viewer'], /at least 12 characters/],
      [['users', 'create', '--role', 'viewer'], /needs a username/],
      [['users', 'create', 'Bad Name', '--role', 'viewer', '--password-env', 'DASH_PW'], /a username is/],
      [['users', 'frobnicate'], /unknown users command/],
    ];
    for (const [argv, message] of refusals) {
      const r = await runHerald([...argv, '--data-dir', dir], { env });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }

    const list = await runHerald(['users', 'list', '--data-dir', dir]);
    expect(list.code).toBe(0);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(0, 2)),
    ).toEqual([
      ['ada', 'operator'],
      ['vic', 'viewer'],
    ]);
    expect(list.stdout).not.toContain('scrypt');

    // The password the CLI stored signs in; revoke-sessions ends the session.
    const store = openSqliteStore({ path: databasePath(dir) });
    await store.migrate();
    const app = await buildApp({
      store,
      intake: new IntakeService({ store, accounts: [], clock: systemClock, logger: silentLogger }),
      replay: new ReplayService({ store, clock: systemClock }),
    });
    try {
      const signIn = await app.inject({ method: 'POST', url: '/v1/session', payload: { username: 'ada', password: PASSWORD } });
      expect(signIn.statusCode, signIn.body).toBe(201);
      expect(signIn.json().session.role).toBe('operator');
      const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
      expect((await app.inject({ method: 'GET', url: '/v1/session', headers: { cookie } })).statusCode).toBe(200);
      const revoked = await runHerald(['users', 'revoke-sessions', 'ada', '--data-dir', dir]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain('revoked 1 session of ada');
      expect((await app.inject({ method: 'GET', url: '/v1/session', headers: { cookie } })).statusCode).toBe(401);
      const nobody = await runHerald(['users', 'revoke-sessions', 'nobody', '--data-dir', dir]);
      expect(nobody.code).toBe(1);
    } finally {
      await app.close();
      await store.close();
    }
  }, 60_000);
});
