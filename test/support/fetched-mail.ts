/**
 * A mail as the test helpers fetch it from Dovecot (mail-servers.ts): its
 * UID, raw bytes and flags, and its header fields read from the raw head,
 * unfolded, so tests assert on what the server holds.
 */
export interface FetchedMail {
  uid: number;
  raw: Buffer;
  flags: string[];
  /** Header fields by lower-case name, unfolded, in message order. */
  headers: Record<string, string[]>;
  subject: string | undefined;
  messageId: string | undefined;
}

/** `raw` with its header fields read from the head (up to the first blank line). */
export function toFetched(uid: number, raw: Buffer, flags: Set<string> | undefined): FetchedMail {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
  const headers: Record<string, string[]> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  return { uid, raw, flags: [...(flags ?? [])], headers, subject: headers.subject?.[0], messageId: headers['message-id']?.[0] };
}
