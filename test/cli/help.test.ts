/**
 * The `herald` command's usage surface: help for every command, and exit code 2 with a
 * readable message for every usage mistake. Runs the built dist/ (`npm run build`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killChildren, removeTempDirs, requireBuild, runHerald } from './spawn.js';

requireBuild();

afterEach(async () => {
  await killChildren();
  removeTempDirs();
});

/** The long flags each command accepts (see src/cli/commands/*.ts); its help must name each one. */
const SERVE_FLAGS = ['--config', '--port', '--host', '--data-dir', '--sandbox-port', '--no-sandbox'];
const COMMAND_FLAGS: Record<string, { argv: string[]; flags: string[] }> = {
  start: { argv: ['start'], flags: SERVE_FLAGS },
  api: { argv: ['api'], flags: SERVE_FLAGS },
  worker: { argv: ['worker'], flags: SERVE_FLAGS },
  sandbox: { argv: ['sandbox'], flags: ['--port', '--host', '--api-key', '--seed'] },
  migrate: { argv: ['migrate'], flags: ['--config', '--data-dir'] },
  keys: { argv: ['keys', 'create'], flags: ['--label', '--tenant', '--scope', '--expires', '--id', '--config', '--data-dir'] },
  tenants: { argv: ['tenants', 'create'], flags: ['--id', '--name', '--label', '--account', '--config', '--data-dir'] },
  users: { argv: ['users'], flags: ['--role', '--password-env', '--config', '--data-dir'] },
  doctor: { argv: ['doctor'], flags: ['--config', '--account'] },
  'send-test': { argv: ['send-test'], flags: ['--account', '--to', '--text', '--api', '--key', '--wait', '--config', '--data-dir'] },
  'phone-sim': {
    argv: ['phone-sim'],
    flags: ['--server', '--token', '--name', '--send-delay-ms', '--deliver-delay-ms', '--fail-rate', '--fail-error', '--sims'],
  },
  alerts: { argv: ['alerts', 'test'], flags: ['--config', '--data-dir'] },
};

describe('herald help', () => {
  it('`herald --help` exits 0 and lists every command', async () => {
    for (const run of await Promise.all([runHerald(['--help']), runHerald(['-h'])])) {
      expect(run.code).toBe(0);
      for (const command of ['start', 'api', 'worker', 'sandbox', 'migrate', 'keys', 'tenants', 'users', 'doctor', 'send-test', 'phone-sim', 'alerts test']) {
        expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
      }
      expect(run.stderr).toBe('');
    }
  });

  it('`herald <command> --help` exits 0 and documents every flag of the command', async () => {
    const runs = await Promise.all(
      Object.entries(COMMAND_FLAGS).map(async ([name, { argv, flags }]) => ({ name, flags, run: await runHerald([...argv, '--help']) })),
    );
    for (const { name, flags, run } of runs) {
      expect(run.code, `${name}: ${run.stderr}`).toBe(0);
      expect(run.stdout, name).toMatch(new RegExp(`^Usage: herald ${name}\\b`));
      for (const flag of flags) expect(run.stdout, `${name} --help should document ${flag}`).toMatch(new RegExp(`${flag}\\b`));
    }
  });

  it('`herald help <command>` shows the same text as `herald <command> --help`', async () => {
    const [viaHelp, viaFlag] = await Promise.all([runHerald(['help', 'sandbox']), runHerald(['sandbox', '--help'])]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
});

describe('usage errors exit 2', () => {
  it('`herald` alone prints the usage', async () => {
    const run = await runHerald([]);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/Usage: herald <command>/);
  });

  it('an unknown command is named, with the usage', async () => {
    const run = await runHerald(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "frobnicate"');
    expect(run.stderr).toMatch(/Usage: herald <command>/);
    expect(run.stdout).toBe('');
  });

  it('an unknown flag is named', async () => {
    const [migrate, start] = await Promise.all([runHerald(['migrate', '--frobnicate']), runHerald(['start', '--frobnicate', '--port', '0'])]);
    for (const run of [migrate, start]) {
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--frobnicate');
      expect(run.stdout).not.toContain('Herald is running');
    }
  });

  it('`herald start --port abc` is refused before anything starts', async () => {
    const run = await runHerald(['start', '--port', 'abc']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--port must be a port number.*abc/);
    expect(run.stdout).toBe('');
  });

  it('`--metrics-port` is for `herald worker`: refused with the API, which serves /metrics on its own port', async () => {
    for (const command of ['start', 'api']) {
      const run = await runHerald([command, '--metrics-port', '9464']);
      expect(run.code, command).toBe(2);
      expect(run.stderr).toMatch(/--metrics-port is for herald worker/);
    }
    expect((await runHerald(['worker', '--help'])).stdout).toContain('--metrics-port N');
  });
});
