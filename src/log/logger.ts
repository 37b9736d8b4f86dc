/**
 * The root pino logger. Secrets are redacted here, at the root, so no child
 * logger (per room, per connector, per job) can print one by accident: fields
 * by path, and credentials in query strings (`?token=…`) anywhere in a line —
 * a request's `url`, a message, an error's stack.
 *
 * Lines are JSON by default; `pretty` (pretty-destination.ts) rewrites each line pino
 * has written, after both redactions, into one line for people (errors' stacks
 * at debug and trace only).
 */
import { types } from '../base/builtins.ts';
import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyDestination } from './pretty-destination.ts';

const REDACTED = '[redacted]';

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

// ─── Credentials in query strings ──────────────────────────────────────────────
// In every `?name=value`, `&name=value` or `;name=value` of a written line whose
// name is credential-like, the value becomes `[redacted]`. Names are compared
// case-insensitively after percent-decoding (`%74oken`, `Access_Token`). A value
// ends at `&`, `;`, `#`, white space or an unescaped `"` (the end of the JSON
// string); JSON escapes inside it (`\"`) and `'`, `<`, `>` are part of it, so a
// value cannot end early and leave a tail.

/**
 * Names whose values are credentials, as the issue lists them and as OAuth and common APIs name them; `s` is
 * the signature of a file link (`/files/<id>?e=…&s=…`), which alone lets anyone download the file.
 */
const CREDENTIAL_NAMES = new Set([
  'token', 'key', 'api_key', 'apikey', 'access_token', 'refresh_token', 'id_token', 'auth', 'authorization',
  'proxy-authorization', 'credential', 'credentials', 'session', 'secret', 'client_secret', 'password', 'passwd', 'pwd', 'sig', 'signature', 'code', 's',
]);
/** …and any name ending in one of these after `_` or `-` (`auth_token`, `x-api-key`, `webhook_secret`). */
const CREDENTIAL_SUFFIX = /[_-](token|key|secret|password|signature)$/;

const PARAMETER = /([?&;])([^=&;#?"'<>\s\\]+)=((?:\\.|[^&;#"\s\\])*)/g;

function nameOf(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced).trim().toLowerCase();
  } catch {
    return spaced.trim().toLowerCase();
  }
}

function isCredentialName(raw: string): boolean {
  const name = nameOf(raw);
  return CREDENTIAL_NAMES.has(name) || CREDENTIAL_SUFFIX.test(name);
}

/** `text` with the value of every credential-like query parameter replaced by `[redacted]`. */
export function redactQueryCredentials(text: string): string {
  return text.replace(PARAMETER, (whole, sep: string, name: string, value: string) =>
    value !== '' && isCredentialName(name) ? `${sep}${name}=${REDACTED}` : whole,
  );
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

/**
 * pino's error serializer for Errors; an `err` that is a plain object
 * (`{ message, code }`, picked from an error on purpose) is written as it is,
 * without the serializer's `"type":"Object"` and empty stack.
 */
function serializeErr(err: unknown): unknown {
  return err instanceof Error || types.isNativeError(err) ? pino.stdSerializers.err(err as Error) : err;
}

export function createLogger(level: LogLevel = 'info', destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      base: { service: 'threadgate' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeErr },
      redact: { paths: REDACTED_PATHS, censor: REDACTED },
      hooks: { streamWrite: redactQueryCredentials },
    },
    format === 'pretty' ? prettyDestination(destination, level === 'debug' || level === 'trace') : destination,
  );
}

export type { Logger };
