/**
 * Message-IDs as threading needs them: `<local@domain>`, whatever the
 * header looked like on the wire.
 *
 * Real References / In-Reply-To headers are folded in the middle of an id,
 * miss the angle brackets, repeat ids, carry comments ("(Jane's message of
 * Monday)") or prose ("Your message of … <id>"). `extractMessageIds` keeps
 * every id in order, once.
 *
 * A mail without a usable Message-ID gets a derived one (`deriveMessageId`):
 *
 *   <sha256-hex@threadgate.invalid>  over the raw bytes, line ends normalised
 *
 * The raw bytes, not from+date+subject+body: reading the same stored mail
 * again (the dedup case) gives the same bytes, while two alerts a script sent
 * with identical text and no Date still differ in their Received headers and
 * must not be merged. Line ends are normalised (CRLF → LF, trailing blank
 * lines dropped) so a transport converting them does not change the id.
 */
import { createHash } from 'node:crypto';

export const DERIVED_ID_DOMAIN = 'threadgate.invalid';

/** `<…>` pieces, or bare `local@domain` tokens in headers that forgot the brackets. */
const ID_TOKEN = /<([^<>]*)>|([^\s<>(),;"']+@[^\s<>(),;"']+)/g;
/** A comment without angle brackets inside it: "(Jane's message of Mon, 4 Mar)". */
const COMMENT = /\([^()<>]*\)/g;

/** Normalises one id to `<local@domain>`; undefined when nothing usable is left. */
export function normaliseMessageId(value: string): string | undefined {
  const bare = value.replace(/\s+/g, '').replace(/^<+|>+$/g, '');
  if (bare === '' || /[<>]/.test(bare)) return undefined;
  return `<${bare}>`;
}

/** Every id of the given header values, in order of appearance, each once. */
export function extractMessageIds(values: readonly string[] | undefined): string[] {
  const ids: string[] = [];
  for (const value of values ?? []) {
    for (const match of value.replace(COMMENT, ' ').matchAll(ID_TOKEN)) {
      const id = normaliseMessageId(match[1] ?? match[2] ?? '');
      if (id !== undefined && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/** The first id of a Message-ID header; tolerates a missing pair of brackets. */
export function firstMessageId(values: readonly string[] | undefined): string | undefined {
  const [first] = extractMessageIds(values);
  if (first !== undefined) return first;
  // An id without an @ ("Message-ID: 1234.5678") is poor but still the sender's own stable id.
  const bare = values?.[0]?.trim();
  return bare && !/\s/.test(bare) ? normaliseMessageId(bare) : undefined;
}

/**
 * The Message-ID of the gateway's mail for one platform message:
 * `<tg.<32 hex of sha256(platform message id)>@<support domain>>`, the same on
 * every retry, and recognisable when a copy comes back.
 */
export function ownMessageId(platformMessageId: string, domain: string): string {
  return `<tg.${createHash('sha256').update(platformMessageId).digest('hex').slice(0, 32)}@${domain}>`;
}

/** Whether `id` has the form of `ownMessageId` for this domain: mail the gateway sent. */
export function isOwnMessageId(id: string, domain: string): boolean {
  const match = /^<tg\.[0-9a-f]{32}@([^<>@]+)>$/.exec(id);
  return match !== null && match[1]!.toLowerCase() === domain.toLowerCase();
}

/** The stable id of a mail without a Message-ID (see the module comment). */
export function deriveMessageId(raw: Buffer): string {
  const normalised = raw.toString('latin1').replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const hash = createHash('sha256').update(Buffer.from(normalised, 'latin1')).digest('hex');
  return `<${hash}@${DERIVED_ID_DOMAIN}>`;
}
