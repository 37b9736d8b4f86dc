/**
 * Which thread an incoming mail belongs to: the first of its In-Reply-To and
 * References ids (newest first) that is attached to a thread — ids the
 * gateway received or sent; else the `+token` of a recipient address; else a
 * new thread rooted at this mail's own Message-ID. A reply written in another
 * client (In-Reply-To pointing elsewhere) still lands right when any id in
 * References matches.
 */
import { tokenFromAddresses, tokenReference } from './reply-token.ts';

/** Where a reference leads: the thread it is attached to, if any. */
export interface ThreadLookup {
  byReference(reference: string): Promise<{ key: string } | undefined>;
}

export interface ThreadingInput {
  messageId: string;
  inReplyTo: readonly string[];
  references: readonly string[];
  recipients: readonly string[];
}

export interface ThreadMatch {
  key: string;
  /** How it was found: `in-reply-to`, `references`, `token` or `new`. */
  via: 'in-reply-to' | 'references' | 'token' | 'new';
}

export async function resolveThread(mail: ThreadingInput, threads: ThreadLookup, supportAddress: string): Promise<ThreadMatch> {
  for (const id of mail.inReplyTo) {
    const thread = await threads.byReference(id);
    if (thread) return { key: thread.key, via: 'in-reply-to' };
  }
  for (const id of [...mail.references].reverse()) {
    const thread = await threads.byReference(id);
    if (thread) return { key: thread.key, via: 'references' };
  }
  const token = tokenFromAddresses(supportAddress, mail.recipients);
  if (token !== undefined) {
    const thread = await threads.byReference(tokenReference(token));
    if (thread) return { key: thread.key, via: 'token' };
  }
  const own = await threads.byReference(mail.messageId); // the same mail read again
  if (own) return { key: own.key, via: 'references' };
  return { key: mail.messageId, via: 'new' };
}
