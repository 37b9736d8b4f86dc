/** Errors of the command line. */
import { ThreadgateError } from '../base/errors.ts';

/** Wrong words on the command line: printed as the reason, then the command's forms when given; exit 2. */
export class UsageError extends ThreadgateError {
  readonly code = 'TG_USAGE';
  /** The forms of the command (`usage: threadgate …` lines), for a command line that matches none of them. */
  readonly usage: string | undefined;

  constructor(reason: string, options: ErrorOptions & { usage?: string } = {}) {
    super(reason, options);
    this.usage = options.usage;
  }
}

/**
 * A command that only reads found no store where the settings put it: no
 * SQLite file, or a PostgreSQL database without threadgate's tables. Nothing
 * was created or migrated.
 */
export class StoreNotFoundError extends ThreadgateError {
  readonly code = 'TG_STORE_NOT_FOUND';
}

/** What the usual listen failures mean for someone starting the gateway. */
const LISTEN_REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this machine',
};

/** A server (the gateway, the embedded sandbox) cannot listen on its address. */
export class ListenError extends ThreadgateError {
  readonly code = 'TG_LISTEN_FAILED';

  /** The ListenError for Node's own listen failure, or undefined when `err` is not one. */
  static from(err: unknown): ListenError | undefined {
    const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
    if (!(err instanceof Error) || e.syscall !== 'listen') return undefined;
    const host = e.address ?? '?';
    const where = `${host.includes(':') ? `[${host}]` : host}:${e.port ?? '?'}`;
    const reason = (e.code !== undefined ? LISTEN_REASONS[e.code] : undefined) ?? e.message;
    return new ListenError(`cannot listen on ${where}: ${reason}`, { cause: err });
  }
}

/** `threadgate health` found no healthy gateway at the address it asked (exit 1: unhealthy). */
export class HealthCheckError extends ThreadgateError {
  readonly code = 'TG_HEALTH_FAILED';
}

/** The embedded sandbox of the settings' gateway cannot be reached (it never ran, or serve is not running). */
export class SandboxUnreachableError extends ThreadgateError {
  readonly code = 'TG_SANDBOX_UNREACHABLE';
}

/** `threadgate listen` cannot open the gateway's live feed: nothing answers, or the admin API refuses the token. */
export class ListenRefusedError extends ThreadgateError {
  readonly code = 'TG_LISTEN_REFUSED';
}

/** `threadgate trigger` could not hand its webhook over: nothing answers at the address. */
export class TriggerFailedError extends ThreadgateError {
  readonly code = 'TG_TRIGGER_FAILED';
}

/** `threadgate alerts test`: no `alerts:` section, or a destination did not take the test alert. */
export class AlertTestError extends ThreadgateError {
  readonly code = 'TG_ALERT_TEST_FAILED';
}
