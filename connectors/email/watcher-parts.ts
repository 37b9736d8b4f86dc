/**
 * Small parts of watching a mailbox, apart from the loop itself: its errors,
 * how an IMAP failure is described in health, and grouping downloads by size.
 */
export class UidValidityChangedError extends Error {
  readonly code = 'TG_EMAIL_UIDVALIDITY_CHANGED';
}

/** The handler failed on a mail (not an IMAP problem); the session ends and the mail is tried again, or given up. */
export class MailHandlingError extends Error {
  readonly code = 'TG_EMAIL_HANDLING_FAILED';
}

/** Consecutive runs of `sized` of at most `maxItems` whose sizes add up to at most `maxBytes`; at least one mail each. */
export function groupsBySize<T extends { size: number }>(sized: readonly T[], maxBytes: number, maxItems = Infinity): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  let bytes = 0;
  for (const item of sized) {
    if (group.length > 0 && (bytes + item.size > maxBytes || group.length >= maxItems)) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(item);
    bytes += item.size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** What imapflow puts on the error of a command the server refused (NO or BAD), besides its message "Command failed". */
interface ImapCommandError {
  message?: string;
  code?: string;
  authenticationFailed?: boolean;
  /** NO or BAD. */
  responseStatus?: string;
  /** The response code in brackets, e.g. AUTHENTICATIONFAILED. */
  serverResponseCode?: string;
  /** The server's human-readable text, e.g. "Authentication failed.". */
  responseText?: string;
  /** After a refused login: the whole response line as text. */
  response?: unknown;
}

/** The server's answer: `AUTHENTICATIONFAILED: Authentication failed.`, or whichever of code and text there is. */
function serverAnswer(e: ImapCommandError): string | undefined {
  const text = e.responseText ?? (typeof e.response === 'string' && e.response !== '' ? e.response : undefined);
  if (e.serverResponseCode && text) return `${e.serverResponseCode}: ${text}`;
  return e.serverResponseCode ?? text;
}

/** imapflow says only "Command failed" for a refused login; the server's own words are on the error. */
export function describeImapError(err: unknown): string {
  const e = (err ?? {}) as ImapCommandError;
  const server = serverAnswer(e);
  if (e.authenticationFailed) return `IMAP authentication failed${server ? `: ${server}` : ''}`;
  if (e.message === 'Command failed' && server) return `IMAP command failed: ${server}`;
  return e.message ?? String(err);
}

/**
 * The `err` of a log line about a failed session: the description health
 * shows, the error's code, and the server's answer as imapflow gives it
 * (never the command sent, which names the login).
 */
export function imapErrorForLog(err: unknown): Record<string, string | undefined> {
  const e = (err ?? {}) as ImapCommandError;
  return {
    message: describeImapError(err),
    code: e.code,
    response_status: e.responseStatus,
    server_response_code: e.serverResponseCode,
    response_text: e.responseText,
  };
}
