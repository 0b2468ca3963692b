/** Provider credentials from a literal, an environment variable or a file; errors name where, never what. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialProblem, CredentialError, readCredential } from '../../src/providers/credentials.js';

const SECRET = 'sk_live_canary_7f3a9d';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function secretFile(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'herald-cred-'));
  dirs.push(dir);
  const path = join(dir, 'token');
  writeFileSync(path, content);
  return path;
}
function thrown(fn: () => unknown): CredentialError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CredentialError);
    return e as CredentialError;
  }
  throw new Error('expected a CredentialError');
}

describe('readCredential', () => {
  it('reads a literal, a variable, or a file (one trailing newline dropped), in that order of precedence', () => {
    expect(readCredential('a', { api_key: SECRET }, 'api_key', {})).toBe(SECRET);
    expect(readCredential('a', { api_key_env: 'K' }, 'api_key', { K: SECRET })).toBe(SECRET);
    expect(readCredential('a', { api_key_file: secretFile(`${SECRET}\n`) }, 'api_key', {})).toBe(SECRET);
    expect(readCredential('a', { api_key_file: secretFile(`${SECRET}\r\n`) }, 'api_key', {})).toBe(SECRET);
    expect(readCredential('a', { api_key: SECRET, api_key_env: 'K' }, 'api_key', { K: 'other' })).toBe(SECRET);
  });

  it('names the account, the setting and the variable or file when a credential cannot be read, and never a value', () => {
    const none = thrown(() => readCredential('mail', {}, 'api_key', {}));
    expect(none.field).toBe('settings.api_key');
    expect(none.message).toContain('provider account mail');
    const unset = thrown(() => readCredential('mail', { api_key_env: 'RESEND_KEY' }, 'api_key', { OTHER: SECRET }));
    expect(unset.field).toBe('settings.api_key_env');
    expect(unset.message).toContain('RESEND_KEY');
    const empty = thrown(() => readCredential('mail', { api_key_env: 'RESEND_KEY' }, 'api_key', { RESEND_KEY: '' }));
    expect(empty.message).toContain('not set');
    const missing = thrown(() => readCredential('mail', { api_key_file: '/nonexistent/herald/token' }, 'api_key', {}));
    expect(missing.field).toBe('settings.api_key_file');
    expect(missing.message).toContain('/nonexistent/herald/token');
    expect(missing.message).toContain('ENOENT');
    const blank = thrown(() => readCredential('mail', { api_key_file: secretFile('\n') }, 'api_key', {}));
    expect(blank.message).toContain('is empty');
    for (const e of [none, unset, empty, missing, blank]) expect(e.message).not.toContain(SECRET);
  });

  it('reports the same problems for config load without throwing', () => {
    expect(credentialProblem('mail', { api_key: SECRET }, 'api_key', {})).toBeNull();
    expect(credentialProblem('mail', { api_key_env: 'X' }, 'api_key', {})).toEqual({ field: 'settings.api_key_env', message: expect.stringContaining('X') });
  });
});
