/**
 * Credentials in provider settings: a setting `x` may be given literally (`x`), as the name of
 * an environment variable (`x_env`), or as a file path (`x_file`, e.g. a mounted secret; one
 * trailing newline is dropped). Values are read when an adapter is built and are never logged,
 * never returned by the API, and never quoted in an error.
 */
import { readFileSync } from 'node:fs';
import { Type, type TOptional, type TString } from '@sinclair/typebox';
import type { AccountProblem, DoctorCheck } from './kinds.js';

/** Where a credential comes from, as configured; null when none of the three forms is set. */
export type CredentialSource = { from: 'value'; value: string } | { from: 'env'; name: string } | { from: 'file'; path: string };

/** Reads which of `name`, `name_env`, `name_file` the settings give (the first set, in that order). */
export function credentialSource(settings: Record<string, unknown> | undefined, name: string): CredentialSource | null {
  const s = settings ?? {};
  const value = s[name];
  if (typeof value === 'string' && value !== '') return { from: 'value', value };
  const env = s[`${name}_env`];
  if (typeof env === 'string' && env !== '') return { from: 'env', name: env };
  const file = s[`${name}_file`];
  if (typeof file === 'string' && file !== '') return { from: 'file', path: file };
  return null;
}

/** A credential that cannot be read: says which account, which setting and which variable or file, never a value. */
export class CredentialError extends Error {
  readonly code = 'credential_missing';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = 'CredentialError';
  }
}

/**
 * Reads the credential `name` of an account's settings. Throws CredentialError when it is not
 * configured (and `required`), its variable is unset or empty, or its file cannot be read.
 */
export function readCredential(accountId: string, settings: Record<string, unknown> | undefined, name: string, env: NodeJS.ProcessEnv = process.env): string {
  const source = credentialSource(settings, name);
  const field = `settings.${name}`;
  if (source === null) {
    throw new CredentialError(`provider account ${accountId}: ${field} is required (literally, as ${name}_env naming a variable, or as ${name}_file)`, field);
  }
  if (source.from === 'value') return source.value;
  if (source.from === 'env') {
    const v = env[source.name];
    if (v === undefined || v === '')
      throw new CredentialError(`provider account ${accountId}: ${field}_env names ${source.name}, which is not set in the environment`, `${field}_env`);
    return v;
  }
  let text: string;
  try {
    text = readFileSync(source.path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code ?? 'unreadable';
    throw new CredentialError(`provider account ${accountId}: ${field}_file ${source.path} cannot be read (${code})`, `${field}_file`);
  }
  const v = text.replace(/\r?\n$/, '');
  if (v === '') throw new CredentialError(`provider account ${accountId}: ${field}_file ${source.path} is empty`, `${field}_file`);
  return v;
}

/** The problem `readCredential` would throw, as a config-load problem; null when the credential reads. */
export function credentialProblem(
  accountId: string,
  settings: Record<string, unknown> | undefined,
  name: string,
  env: NodeJS.ProcessEnv,
): AccountProblem | null {
  try {
    readCredential(accountId, settings, name, env);
    return null;
  } catch (err) {
    if (err instanceof CredentialError) return { field: err.field, message: err.message };
    throw err;
  }
}

/** The three settings of a credential `name`: the literal `name`, `name_env` and `name_file`, each optional. */
export type CredentialSettings<N extends string> = { [K in N | `${N}_env` | `${N}_file`]: TOptional<TString> };

/**
 * The settings of a credential, declared once (src/schema/setting.ts): `name` (literal), `name_env`
 * and `name_file`, all optional; whether one of them must be given is the kind's check (`readCredential`).
 */
export function credentialSettings<const N extends string>(name: N, description: string): CredentialSettings<N> {
  return {
    [name]: Type.Optional(Type.String({ minLength: 1, description: `${description} Literal value; prefer ${name}_env or ${name}_file.` })),
    [`${name}_env`]: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: `Name of the environment variable holding ${name}.` })),
    [`${name}_file`]: Type.Optional(Type.String({ minLength: 1, description: `Path of a file holding ${name} (one trailing newline is ignored).` })),
  } as CredentialSettings<N>;
}

/**
 * What a doctor checks first: the account's settings as its adapter reads them, or the one
 * finding `credentials configured` that says why they cannot be read. A `CredentialError` is
 * that finding; with `anyError`, any error is (a kind whose reader refuses other settings with
 * plain errors, which the configuration check refuses too).
 */
export function settingsForDoctor<S>(read: () => S, anyError = false): { ok: true; settings: S } | { ok: false; checks: DoctorCheck[] } {
  try {
    return { ok: true, settings: read() };
  } catch (err) {
    if (!anyError && !(err instanceof CredentialError)) throw err;
    return { ok: false, checks: [{ name: 'credentials configured', ok: false, detail: (err as Error).message }] };
  }
}
