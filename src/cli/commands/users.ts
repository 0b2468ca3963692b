/**
 * `herald users create|list|revoke-sessions`: the dashboard's username/password sign-ins. The
 * password comes from stdin or an environment variable, never the command line (which `ps` and
 * shell history show); Herald stores an scrypt hash of it.
 */
import { mkdirSync } from 'node:fs';
import { systemClock } from '../../clock.js';
import { hashPassword } from '../../http/passwords.js';
import { newId } from '../../ids.js';
import { openStore } from '../../runtime/node.js';
import { USER_ROLES, type UserRole } from '../../store/store.js';
import { CONFIG_FLAGS, parseFlags, UsageError } from '../args.js';
import { DEFAULT_TENANT } from '../bootstrap-key.js';
import { loadConfig } from '../load-config.js';

export const USERS_HELP = `Usage: herald users create <username> --role admin|operator|viewer [--password-env VAR]
       herald users list
       herald users revoke-sessions <username>
Options for every sub-command: [--config herald.json] [--data-dir ./herald-data]

Dashboard users of the default tenant. create reads the password from stdin (one line; pipe
it in) or from the environment variable --password-env names; at least 12 characters.
revoke-sessions signs the user out everywhere at once.
  admin     everything, destinations in full
  operator  retry, resend, cancel, device retry, campaign pause/resume/cancel; destinations masked
  viewer    read only; destinations masked
`;

/** 12 characters: NIST SP 800-63B asks for 8 at least; a dashboard that can resend codes deserves more. */
const MIN_PASSWORD = 12;
const USERNAME = /^[a-z0-9][a-z0-9._@-]{0,63}$/;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('pipe the password on stdin (e.g. `printf %s "$PW" | herald users create ...`) or use --password-env VAR');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export async function usersCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(USERS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (!['create', 'list', 'revoke-sessions'].includes(sub)) throw new UsageError(`unknown users command "${sub}"; try: herald users --help`);
  const takesName = sub !== 'list';
  const username = takesName && rest[0] !== undefined && !rest[0].startsWith('-') ? rest.shift()! : null;
  const flags = parseFlags(rest, {
    role: { type: 'string' },
    'password-env': { type: 'string' },
    ...CONFIG_FLAGS,
  });
  if (flags.help) {
    process.stdout.write(USERS_HELP);
    return 0;
  }
  if (takesName && username === null) throw new UsageError(`herald users ${sub} needs a username`);
  if (username !== null && !USERNAME.test(username))
    throw new UsageError('a username is 1-64 characters: lower-case letters, digits and . _ @ -, starting with a letter or digit');
  if (sub !== 'create' && (flags.role !== undefined || flags['password-env'] !== undefined))
    throw new UsageError(`--role and --password-env belong to herald users create`);

  let role: UserRole | null = null;
  let password: string | null = null;
  if (sub === 'create') {
    if (!USER_ROLES.includes(flags.role as UserRole)) throw new UsageError(`--role must be one of ${USER_ROLES.join(', ')}`);
    role = flags.role as UserRole;
    const envName = flags['password-env'];
    password = envName !== undefined ? (process.env[envName] ?? '') : await readStdin();
    if (envName !== undefined && password === '') throw new UsageError(`--password-env names ${envName}, which is not set`);
    if ([...password].length < MIN_PASSWORD) throw new UsageError(`the password must be at least ${MIN_PASSWORD} characters`);
  }

  const config = loadConfig(flags.config, flags['data-dir'] ? { dataDir: flags['data-dir'] } : {});
  mkdirSync(config.data_dir, { recursive: true });
  const store = await openStore(config);
  try {
    const now = systemClock.now();
    if (sub === 'create') {
      await store.ensureTenant(DEFAULT_TENANT, now);
      const id = newId('usr', now);
      const created = await store.sessions.createUser({
        id,
        tenantId: DEFAULT_TENANT.id,
        username: username!,
        passwordHash: await hashPassword(password!),
        role: role!,
        now,
      });
      if (!created) {
        process.stderr.write(`a user named ${username} already exists\n`);
        return 1;
      }
      process.stdout.write(`created ${username} (${role}, ${id})\n`);
      return 0;
    }
    if (sub === 'list') {
      const users = await store.sessions.listUsers();
      if (users.length === 0) process.stderr.write('no users; create one with herald users create <username> --role <role>\n');
      for (const u of users) process.stdout.write(`${u.username}\t${u.role}\t${u.id}\t${new Date(u.createdAt).toISOString()}\n`);
      return 0;
    }
    const user = await store.sessions.findUser(username!);
    if (!user) {
      process.stderr.write(`no user named ${username}\n`);
      return 1;
    }
    const n = await store.sessions.revokeUserSessions(user.id, now);
    process.stdout.write(`revoked ${n} session${n === 1 ? '' : 's'} of ${username}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
