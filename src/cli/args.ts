/** Command-line parsing shared by the commands: node's parseArgs with errors worth reading. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { HeraldError } from '../errors.js';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The result of a service call, with its refusals (HeraldError: a tenant that exists, a key
 * that does not) turned into usage errors, which the CLI prints and exits 2 on; `message`
 * replaces the refusal's own wording where the command line says it better.
 */
export async function refusalsAsUsage<T>(work: Promise<T>, message?: string): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HeraldError) throw new UsageError(message ?? err.message);
    throw err;
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags of every command that reads the configuration (and with it, the store): `--config/-c` and `--data-dir/-d`. */
export const CONFIG_FLAGS = {
  config: { type: 'string', short: 'c' },
  'data-dir': { type: 'string', short: 'd' },
} as const;

/** Parses `argv` against `options`; unknown flags and positionals are usage errors. */
export function parseFlags<T extends Options>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Reads a port flag: an integer 0-65535, or undefined when absent. */
export function portFlag(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--${name} must be a port number (0-65535), got ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return n;
}
