/**
 * The root pino logger. Secrets are redacted here, at the root, so no child
 * logger (per room, per connector, per job) can print one by accident: fields
 * by path, and credentials in query strings (`?token=…`) anywhere in a line —
 * a request's `url`, a message, an error's stack.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { redactQueryCredentials } from './redact-query.ts';

export const REDACTED_PATHS = [
  'token',
  'password',
  'secret',
  'access_token',
  'admin_token',
  'webhook_secret_key',
  'authorization',
  '*.token',
  '*.password',
  '*.secret',
  '*.access_token',
  '*.admin_token',
  '*.webhook_secret_key',
  '*.authorization',
  '*.*.token',
  '*.*.password',
  '*.*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-signature"]',
  'req.headers["webhook-signature"]',
  'req.headers["x-private-key"]',
  'headers.authorization',
  'headers["x-private-key"]',
];

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export function createLogger(level: LogLevel = 'info', destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'threadgate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: redactQueryCredentials },
    },
    destination,
  );
}

export type { Logger };
