/**
 * Catching up on a mailbox: every UID after the cursor, in UID order,
 * downloaded in groups of at most `maxGroupMails` whose sizes add up to at
 * most `maxGroupBytes` (a single bigger mail is a group of its own), each
 * group handled before the next is downloaded, then `after_import` done for
 * it and the cursor stored.
 *
 * What it asks the server, a round (a round ends when nothing is left after
 * the cursor):
 * - one `UID SEARCH` for the UIDs after the cursor, and (when more than one
 *   waits) one for those of them `LARGER` than a group's share of bytes
 *   (`maxGroupBytes / maxGroupMails`): only those have their `RFC822.SIZE`
 *   fetched (200 at a time); any other mail counts as the share, so a group
 *   of them is bounded by its count. A mailbox of ordinary mail is listed in
 *   two answers, not one FETCH answer a mail, and not one SEARCH per 200 UIDs
 *   (each of which listed every UID still left).
 * - a `UID FETCH` of the sources a group;
 * - a `UID STORE +FLAGS.SILENT (\Seen)` or a `UID MOVE` a group: silent, so
 *   the server does not answer every mail's new flags.
 */
import type { ImapFlow } from 'imapflow';
import type { ConnectorState } from '../../src/connector/api.ts';
import type { MailHandling } from './mail-handling.ts';
import { groupsBySize } from './watcher-parts.ts';

export interface Cursor {
  uidValidity: string;
  lastUid: number;
}

export const CURSOR_KEY = 'cursor';
/** How many UIDs are looked at (and the big ones' sizes asked for) at a time. */
const SLICE = 200;

export interface CatchUpOptions {
  maxGroupBytes: number;
  maxGroupMails: number;
  /** `seen`, `move:<folder>` or `none` (the connector's `after_import`). */
  afterImport: string;
  handling: MailHandling;
  /** Where the cursor is stored (read anew for each group: the session may be given another state). */
  state: () => ConnectorState;
  /** Told the last UID handled, as it moves. */
  onUid: (uid: number) => void;
}

export class CatchUp {
  readonly #o: CatchUpOptions;
  /** The most a mail may weigh and still go unsized: a group of `maxGroupMails` of them stays within `maxGroupBytes`. */
  readonly #share: number;

  constructor(options: CatchUpOptions) {
    this.#o = options;
    this.#share = Math.max(1, Math.floor(options.maxGroupBytes / options.maxGroupMails));
  }

  /** Handles every mail after `cursor` (moved as they are), until none is left or `signal` aborts. */
  async run(client: ImapFlow, cursor: Cursor, signal: AbortSignal): Promise<void> {
    for (;;) {
      const after = `${cursor.lastUid + 1}:*`;
      // `N:*` always names the highest UID, even one below N.
      const pending = ((await client.search({ uid: after }, { uid: true })) || []).filter((uid) => uid > cursor.lastUid).sort((a, b) => a - b);
      if (pending.length === 0) return;
      // One mail is a group of its own whatever its size: nothing to ask.
      const big = pending.length > 1 ? new Set((await client.search({ uid: after, larger: this.#share }, { uid: true })) || []) : new Set<number>();
      for (let i = 0; i < pending.length; i += SLICE) {
        if (signal.aborted) return;
        const uids = pending.slice(i, i + SLICE);
        if (!(await this.#slice(client, cursor, uids, big, signal))) return;
        // Every mail of the slice still there was handled; what was listed and is gone was expunged meanwhile.
        const last = uids[uids.length - 1] as number;
        if (cursor.lastUid < last) cursor.lastUid = last;
      }
    }
  }

  /** One slice of UIDs, group by group; false when the watcher stopped half-way. */
  async #slice(client: ImapFlow, cursor: Cursor, uids: number[], big: ReadonlySet<number>, signal: AbortSignal): Promise<boolean> {
    const sizes = new Map<number, number>();
    const heavy = uids.filter((uid) => big.has(uid));
    if (heavy.length > 0) {
      for await (const msg of client.fetch(heavy.join(','), { uid: true, size: true }, { uid: true })) {
        if (typeof msg.size === 'number') sizes.set(msg.uid, msg.size);
      }
    }
    // A big mail without a size answer counts as the worst, so it is downloaded alone.
    const sized = uids.map((uid) => ({ uid, size: sizes.get(uid) ?? (big.has(uid) ? this.#o.maxGroupBytes : this.#share) }));
    for (const group of groupsBySize(sized, this.#o.maxGroupBytes, this.#o.maxGroupMails)) {
      if (signal.aborted) return false;
      const batch: { uid: number; source: Buffer }[] = [];
      for await (const msg of client.fetch(group.map((m) => m.uid).join(','), { uid: true, source: true }, { uid: true })) {
        if (msg.source) batch.push({ uid: msg.uid, source: msg.source });
      }
      batch.sort((a, b) => a.uid - b.uid);
      if (!(await this.#group(client, cursor, batch, signal))) return false;
    }
    return true;
  }

  /**
   * One downloaded group: all at once when the handler takes groups, else one by one. The cursor is stored once per
   * group, after the last mail handled (and also when one fails or the watcher stops half-way): never ahead of what
   * was handled, one write instead of one a mail. False when the watcher stopped half-way.
   */
  async #group(client: ImapFlow, cursor: Cursor, batch: { uid: number; source: Buffer }[], signal: AbortSignal): Promise<boolean> {
    const { handling } = this.#o;
    const before = cursor.lastUid;
    const imported: number[] = [];
    try {
      if (await handling.tryGroup(batch, signal)) {
        for (const { uid } of batch) imported.push(uid);
        const last = batch[batch.length - 1];
        if (last) this.#move(cursor, last.uid);
        return true;
      }
      for (const [i, { uid, source }] of batch.entries()) {
        if (signal.aborted) return false;
        const next = batch[i + 1];
        if (next) handling.prepare(next.source); // parsed while this one is stored
        if (await handling.handleOne(source, uid, cursor.uidValidity, signal)) imported.push(uid);
        this.#move(cursor, uid);
      }
      return true;
    } finally {
      await this.#finishGroup(client, cursor, before, imported);
    }
  }

  #move(cursor: Cursor, uid: number): void {
    cursor.lastUid = uid;
    this.#o.onUid(uid);
  }

  /**
   * After a group (or the part of it handled before a failure or a stop): `after_import` for its handled mails in
   * one IMAP command, then the cursor. Should the command fail, the cursor stays where the group began: the group
   * is read again (the bridge's dedup absorbs it) and the command tried again.
   */
  async #finishGroup(client: ImapFlow, cursor: Cursor, before: number, imported: number[]): Promise<void> {
    if (cursor.lastUid === before) return;
    try {
      await this.#afterImport(client, imported);
    } catch (err) {
      cursor.lastUid = before;
      this.#o.onUid(before);
      throw err;
    }
    await this.#o.state().set(CURSOR_KEY, cursor);
  }

  async #afterImport(client: ImapFlow, uids: number[]): Promise<void> {
    if (uids.length === 0) return;
    const set = uids.join(',');
    const action = this.#o.afterImport;
    if (action === 'seen') await client.messageFlagsAdd(set, ['\\Seen'], { uid: true, silent: true });
    else if (action.startsWith('move:')) await client.messageMove(set, action.slice('move:'.length), { uid: true });
  }
}
