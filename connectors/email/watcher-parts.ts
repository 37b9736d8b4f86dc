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

/** imapflow says only "Command failed" for a refused login; the server's own words are on the error. */
export function describeImapError(err: unknown): string {
  const e = err as { message?: string; authenticationFailed?: boolean; response?: string; responseText?: string };
  const server = e.responseText ?? e.response;
  if (e.authenticationFailed) return `IMAP authentication failed${server ? `: ${server}` : ''}`;
  if (e.message === 'Command failed' && server) return `IMAP command failed: ${server}`;
  return e.message ?? String(err);
}
