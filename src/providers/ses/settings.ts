/**
 * An SES account's own settings: the region, the sender, the configuration set that publishes
 * events, the SNS topics those events arrive through, and the AWS credentials. The schema is
 * composed into Herald's configuration schema; `readSesSettings` turns a validated account
 * into what the adapter, the verifier and the doctor use. Credentials are read per request
 * (`readSesCredentials`), so rotated temporary credentials in a file or variable are picked up.
 */
import { Type } from '@sinclair/typebox';
import { parseMailbox } from '../../domain/index.js';
import { section, settle } from '../../schema/setting.js';
import { credentialProblem, credentialSettings, credentialSource, readCredential } from '../credentials.js';
import type { AccountProblem } from '../kinds.js';
import { mailboxSetting } from '../mailbox-setting.js';
import type { ProviderAccountConfig } from '../provider.js';

/** AWS region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`. */
export const REGION_PATTERN = '^[a-z]{2}(-[a-z]+)+-[0-9]+$';
/** SES configuration set names: up to 64 letters, digits, `-` and `_` (SES API v2 CreateConfigurationSet). */
const CONFIGURATION_SET_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** Standard SNS topic ARNs in the aws, aws-cn and aws-us-gov partitions (topic names: 1-256 of `A-Za-z0-9_-`). */
export const TOPIC_ARN_PATTERN = '^arn:aws(-cn|-us-gov)?:sns:[a-z]{2}(-[a-z]+)+-[0-9]+:[0-9]{12}:[A-Za-z0-9_-]{1,256}$';

/** The settings, declared once (src/schema/setting.ts): the JSON Schema, the raw type and the defaults. */
export const sesSettingsSchema = section({
  region: Type.String({ pattern: REGION_PATTERN, description: 'The AWS region the SES identity and quota live in, e.g. eu-west-1.' }),
  from: mailboxSetting('Default sender: `Name <address>` or an address of a verified SES identity.'),
  reply_to: Type.Optional(mailboxSetting('Default Reply-To: `Name <address>` or an address.')),
  configuration_set: Type.Optional(
    Type.String({
      pattern: CONFIGURATION_SET_PATTERN,
      description: 'The SES configuration set whose event destination publishes to the SNS topic(s) below (sent as ConfigurationSetName).',
    }),
  ),
  sns_topic_arns: Type.Optional(
    Type.Array(Type.String({ pattern: TOPIC_ARN_PATTERN }), {
      minItems: 1,
      uniqueItems: true,
      description: 'The SNS topics whose signed notifications POST /v1/callbacks/<account> accepts; none: the account receives no callbacks.',
    }),
  ),
  ...credentialSettings(
    'access_key_id',
    'AWS access key id of an IAM identity allowed ses:SendEmail (and, for herald doctor, ses:GetAccount and ses:GetEmailIdentity).',
  ),
  ...credentialSettings('secret_access_key', 'AWS secret access key belonging to access_key_id.'),
  ...credentialSettings('session_token', 'AWS session token, for temporary credentials (STS).'),
});

/** The settings an SES account resolves to. */
export interface SesSettings {
  region: string;
  from: string;
  replyTo: string | null;
  configurationSet: string | null;
  topicArns: readonly string[];
  /** `https://email.<region>.amazonaws.com`, or the account's `base_url` (a test fake, a VPC endpoint). */
  endpoint: URL;
}

export interface SesCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Resolves a validated account's settings; throws for a configuration error `sesKind.check` lets through. */
export function readSesSettings(account: ProviderAccountConfig): SesSettings {
  const s = settle(sesSettingsSchema, account.settings);
  // Checked by the schema at load; an account built without the configuration (a test) may still lack them.
  if (s.region === null || !new RegExp(REGION_PATTERN).test(s.region))
    throw new Error(`provider account ${account.id}: settings.region is required (e.g. eu-west-1)`);
  if (s.from === null) throw new Error(`provider account ${account.id}: settings.from is required`);
  const endpoint = new URL(account.base_url ?? `https://email.${s.region}.amazonaws.com`);
  if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') throw new Error(`provider account ${account.id}: base_url must be http or https`);
  return {
    region: s.region,
    from: s.from,
    replyTo: s.reply_to,
    configurationSet: s.configuration_set,
    // No topics: the account receives no callbacks.
    topicArns: s.sns_topic_arns ?? [],
    endpoint,
  };
}

/** Reads the account's AWS credentials now (a literal, a variable or a file); throws CredentialError naming the setting. */
export function readSesCredentials(account: ProviderAccountConfig, env: NodeJS.ProcessEnv = process.env): SesCredentials {
  const accessKeyId = readCredential(account.id, account.settings, 'access_key_id', env);
  const secretAccessKey = readCredential(account.id, account.settings, 'secret_access_key', env);
  if (credentialSource(account.settings, 'session_token') === null) return { accessKeyId, secretAccessKey };
  return { accessKeyId, secretAccessKey, sessionToken: readCredential(account.id, account.settings, 'session_token', env) };
}

/** Load-time problems of an SES account: credentials that cannot be read, addresses that do not parse, common fields SES does not use. */
export function sesAccountProblems(account: ProviderAccountConfig, env: NodeJS.ProcessEnv): AccountProblem[] {
  const problems: AccountProblem[] = [];
  const settings = account.settings ?? {};
  for (const name of ['access_key_id', 'secret_access_key']) {
    const problem = credentialProblem(account.id, settings, name, env);
    if (problem) problems.push(problem);
  }
  if (credentialSource(settings, 'session_token') !== null) {
    const problem = credentialProblem(account.id, settings, 'session_token', env);
    if (problem) problems.push(problem);
  }
  const s = settle(sesSettingsSchema, settings);
  for (const name of ['from', 'reply_to'] as const) {
    const value = s[name];
    if (value !== null && parseMailbox(value) === null) {
      problems.push({ field: `settings.${name}`, message: 'is not an e-mail address (`Name <address>` or `address`)' });
    }
  }
  // SES authenticates with SigV4 and its callbacks with SNS signatures: these would be silently ignored.
  if (account.api_key !== undefined || account.api_key_env !== undefined) {
    problems.push({
      field: account.api_key !== undefined ? 'api_key' : 'api_key_env',
      message: 'is not used by ses accounts; set settings.access_key_id and settings.secret_access_key',
    });
  }
  if (account.callback_secrets !== undefined || account.callback_secret_env !== undefined) {
    problems.push({
      field: account.callback_secrets !== undefined ? 'callback_secrets' : 'callback_secret_env',
      message: 'is not used by ses accounts: SNS signs its notifications with certificates; list the topics in settings.sns_topic_arns',
    });
  }
  return problems;
}
