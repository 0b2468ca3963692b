/**
 * The process logger. Destinations, message bodies, codes, API keys and secrets never reach
 * a log line: these paths are censored wherever they appear, and Herald's own log calls
 * carry ids, never content.
 */
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["idempotency-key"]',
  '*.authorization',
  '*.destination',
  '*.content',
  '*.text',
  '*.html',
  '*.subject',
  '*.email',
  '*.phone',
  '*.push_token',
  '*.api_key',
  '*.apiKey',
  '*.key',
  'destination',
  'content',
  'apiKey',
];

/**
 * A pino logger writing JSON lines to stderr (stdout is for the command's own output), or to
 * `destination` (the log canary test reads every line).
 */
export function createLogger(level = process.env.HERALD_LOG_LEVEL ?? 'info', destination: pino.DestinationStream = pino.destination(2)): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
