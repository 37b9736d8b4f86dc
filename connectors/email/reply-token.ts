/**
 * The `+token` of the Reply-To address: replies carry
 * `Reply-To: <local>+<token>@<domain>`, so a customer's answer finds its thread
 * even when the mail client dropped In-Reply-To and References. The token is
 * derived from the thread key (stable, short, lower-case base32) and attached
 * to the thread as the reference `token:<token>`.
 */
import { createHash } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LENGTH = 12;

export function replyToken(threadKey: string): string {
  const digest = createHash('sha256').update(threadKey, 'utf8').digest();
  let out = '';
  for (let i = 0; i < LENGTH; i++) out += ALPHABET[(digest[i] as number) % 32];
  return out;
}

export const tokenReference = (token: string): string => `token:${token}`;

function split(address: string): { local: string; domain: string } {
  const at = address.lastIndexOf('@');
  return { local: address.slice(0, at).toLowerCase(), domain: address.slice(at + 1).toLowerCase() };
}

/** `support+token@domain` for the support address `support@domain`. */
export function replyAddress(supportAddress: string, token: string): string {
  const { local, domain } = split(supportAddress);
  return `${local}+${token}@${domain}`;
}

/** The token of the first recipient that is the support address plus a token, if any. */
export function tokenFromAddresses(supportAddress: string, addresses: readonly string[]): string | undefined {
  const support = split(supportAddress);
  for (const address of addresses) {
    const { local, domain } = split(address);
    if (domain !== support.domain || !local.startsWith(`${support.local}+`)) continue;
    const token = local.slice(support.local.length + 1);
    if (/^[a-z2-7]{12}$/.test(token)) return token;
  }
  return undefined;
}
