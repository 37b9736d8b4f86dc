/**
 * Who else a reply goes to (reply-all, `reply_all: true` by default): the
 * people the customer's side kept on the thread — the To and Cc of its mails,
 * and whoever wrote before the latest sender — as a mail client's Reply All
 * would, gathered over the thread. Never the support address itself or one of
 * its `+token` forms (the reply comes from it), never the person the reply is
 * addressed to, each address once (case-insensitive), at most MAX_CC.
 */
import type { MailAddress } from './parsed-mail.ts';

export const MAX_CC = 20;

/** Whether `address` is the support address or a `+tag` form of it. */
export function isSupportAddress(supportAddress: string, address: string): boolean {
  const a = address.toLowerCase();
  const s = supportAddress.toLowerCase();
  if (a === s) return true;
  const at = s.lastIndexOf('@');
  const local = s.slice(0, at);
  const domain = s.slice(at);
  return a.endsWith(domain) && a.startsWith(`${local}+`);
}

/**
 * The Cc list of the thread after a mail from `sender`: what was kept before (`previous`, including the former
 * addressee), then the mail's To and Cc, in that order, without the sender and the support address.
 */
export function threadCc(supportAddress: string, sender: string, previous: readonly MailAddress[], mail: { to: readonly MailAddress[]; cc: readonly MailAddress[] }): MailAddress[] {
  const seen = new Set([sender.toLowerCase()]);
  const out: MailAddress[] = [];
  for (const candidate of [...previous, ...mail.to, ...mail.cc]) {
    const key = candidate.address.toLowerCase();
    if (key === '' || seen.has(key) || isSupportAddress(supportAddress, key)) continue;
    seen.add(key);
    out.push(candidate.name ? { address: key, name: candidate.name } : { address: key });
    if (out.length === MAX_CC) break;
  }
  return out;
}
