/**
 * The external-tools helper (test/helpers/external-tools.ts) and the run's closing block
 * (external-tools-reporter.ts): a tool is found only when `<tool> --version` runs (a file that
 * is there but cannot run, as when a mount hides it, is missing), and the block names each
 * missing tool, why, each file's skipped tests, and the one install command.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { INSTALL_COMMAND, locateTool, type ToolRecord } from '../helpers/external-tools.js';
import { ROOT } from '../cli/spawn.js';
import { skippedToolsBlock } from './external-tools-reporter.js';

describe('locateTool', () => {
  const saved = { PATH: process.env.PATH, HERALD_CHROMIUM: process.env.HERALD_CHROMIUM };
  let dir = '';
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.HERALD_CHROMIUM === undefined) delete process.env.HERALD_CHROMIUM;
    else process.env.HERALD_CHROMIUM = saved.HERALD_CHROMIUM;
    rmSync(dir, { recursive: true, force: true });
  });
  /** A PATH of one fresh directory holding `files` (name → [content, mode]). */
  function pathWith(files: Record<string, [string, number]>): string {
    dir = mkdtempSync(join(tmpdir(), 'herald-tools-'));
    for (const [name, [content, mode]] of Object.entries(files)) {
      writeFileSync(join(dir, name), content);
      chmodSync(join(dir, name), mode);
    }
    return dir;
  }

  it('finds a program whose --version runs, with the first line it printed', () => {
    process.env.PATH = `${pathWith({ promtool: ['#!/bin/sh\necho "promtool, version 9.9.9"\necho more\n', 0o755] })}:/usr/bin:/bin`;
    expect(locateTool('promtool')).toEqual({ available: true, command: 'promtool', version: 'promtool, version 9.9.9' });
  });

  it('calls a program missing when it is not on PATH, cannot run, or fails its --version', () => {
    process.env.PATH = pathWith({});
    expect(locateTool('promtool')).toEqual({ available: false, command: 'promtool', reason: 'promtool is not installed' });
    rmSync(dir, { recursive: true });
    // What a file bound over the binary looks like: there, but not executable.
    process.env.PATH = pathWith({ promtool: ['', 0o644] });
    expect(locateTool('promtool')).toEqual({ available: false, command: 'promtool', reason: 'promtool cannot run (EACCES)' });
    rmSync(dir, { recursive: true });
    process.env.PATH = `${pathWith({ promtool: ['#!/bin/sh\nexit 2\n', 0o755] })}:/usr/bin:/bin`;
    expect(locateTool('promtool')).toMatchObject({ available: false, reason: '`promtool --version` exited with 2' });
  });

  it('looks for Chromium at HERALD_CHROMIUM when set', () => {
    const bin = join(pathWith({ chrome: ['#!/bin/sh\necho "Chromium 1.2.3"\n', 0o755] }), 'chrome');
    process.env.HERALD_CHROMIUM = bin;
    expect(locateTool('chromium')).toEqual({ available: true, command: bin, version: 'Chromium 1.2.3' });
    process.env.HERALD_CHROMIUM = join(dir, 'absent');
    expect(locateTool('chromium')).toMatchObject({ available: false, reason: `${join(dir, 'absent')} is not installed` });
  });
});

/** A finished test file as the reporter sees it: its tests, each passed or skipped. */
function module(root: string, file: string, tests: [string, 'passed' | 'skipped'][]): TestModule {
  const cases = tests.map(([fullName, state]) => ({ fullName, options: { mode: state === 'skipped' ? 'skip' : 'run' }, result: () => ({ state }) }));
  return { moduleId: join(root, file), children: { allTests: () => cases.values() } } as unknown as TestModule;
}

describe('the closing block', () => {
  const root = '/repo';
  const record = (over: Partial<ToolRecord>): ToolRecord => ({
    tool: 'promtool',
    file: 'test/a.test.ts',
    uses: 'checking rules',
    reason: 'promtool is not installed',
    ci: false,
    ...over,
  });

  it('says nothing when no tool was missing', () => {
    expect(skippedToolsBlock([], [module(root, 'test/a.test.ts', [['x', 'skipped']])], root)).toEqual([]);
  });

  it('lists each missing tool with its reason, the skipped tests of each file, and the install command', () => {
    const block = skippedToolsBlock(
      [
        record({ tool: 'chromium', file: 'test/e2e/d.test.ts', uses: 'the dashboard', reason: '/usr/bin/chromium is not installed' }),
        record({}),
        record({ file: 'test/b.test.ts', uses: 'a second opinion' }),
      ],
      [
        module(root, 'test/a.test.ts', [
          ['a > checks rules', 'skipped'],
          ['a > reads the file', 'passed'],
        ]),
        module(root, 'test/b.test.ts', [['b > scrapes', 'passed']]),
        module(root, 'test/e2e/d.test.ts', [
          ['d > signs in', 'skipped'],
          ['d > signs out', 'skipped'],
        ]),
      ],
      root,
    );
    expect(block.slice(1, -1)).toEqual([
      'Skipped 3 tests (and the checks listed): chromium, promtool not found here, and npm cannot install them. With CI set this fails instead.',
      '  chromium (Debian package chromium): /usr/bin/chromium is not installed',
      '    test/e2e/d.test.ts: 2 skipped (needs it for the dashboard)',
      '      - d > signs in',
      '      - d > signs out',
      '  promtool (Debian package prometheus): promtool is not installed',
      '    test/a.test.ts: 1 skipped (needs it for checking rules)',
      '      - a > checks rules',
      '    test/b.test.ts: its tests ran without it (needs it for a second opinion)',
      'Install them (Debian or Ubuntu, as root), then run `npm test` again:',
      `  ${INSTALL_COMMAND}`,
    ]);
    expect(INSTALL_COMMAND).toBe('apt-get update && apt-get install -y --no-install-recommends chromium prometheus');
  });

  it('says the files failed when CI was set', () => {
    const block = skippedToolsBlock([record({ ci: true })], [], root);
    expect(block[1]).toBe('Missing with CI set, so the files that need them failed: promtool');
    expect(block).toContain('    test/a.test.ts: the file failed (needs it for checking rules)');
  });
});

describe('the install command', () => {
  it('is the one the README gives and .ci/run runs, and .ci/run runs the README’s install and test commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(readme).toContain(INSTALL_COMMAND);
    expect(ci).toContain(`  ${INSTALL_COMMAND}\n`);
    expect(readme).toContain('npm install && npm test');
    expect(ci).toMatch(/^npm install$/m);
    expect(ci).toMatch(/^npm test$/m);
  });
});
