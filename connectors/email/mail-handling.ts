/**
 * What the watcher does with the mails of a downloaded group: all at once
 * (`handleGroup`: the e-mail connector's one write for the group), or, when
 * there is no group handler or the group failed as a whole, one by one with
 * the failure count of mailbox-watcher.ts's module comment — a mail whose
 * handling keeps failing is given up on its `maxHandlerFailures`-th try in a
 * row (counted per UID, across sessions, in memory) and recorded with
 * `onGiveUp`.
 */
import type { ImapFlow } from 'imapflow';
import type { ConnectorState, Logger } from '../../src/connector/api.ts';
import type { OAuth2Tokens } from './oauth2-tokens.ts';
import { MailHandlingError } from './watcher-parts.ts';

export const DEFAULT_MAX_HANDLER_FAILURES = 3;

export interface WatcherOptions {
  /** Most bytes (by RFC822.SIZE) of raw mail downloaded and held at once; one bigger mail is fetched alone. */
  maxGroupBytes?: number;
  /** Most mails downloaded and handled at once. */
  maxGroupMails?: number;
  /**
   * Handles a whole downloaded group (UID order) at once, all or nothing. When it throws, the group's mails
   * are handled one by one (`handle`, with MailHandling's failure count), which isolates a bad one.
   */
  handleGroup?: (mails: readonly { uid: number; raw: Buffer }[]) => Promise<void>;
  /** Consecutive handler failures of one UID before it is given up (at least 1). */
  maxHandlerFailures?: number;
  /** Records a mail given up on (e.g. with `ctx.skip`); throwing keeps the cursor where it is. */
  onGiveUp?: (raw: Buffer, uid: number, error: unknown) => Promise<void>;
  /** Told the next mail of a group before the current one is handled (the intake starts parsing it). */
  prepare?: (raw: Buffer) => void;
  /**
   * Work of the session between catch-ups (the Sent copies), with the session's client and the poll's state;
   * answers whether it selected another mailbox, so the watcher selects its own again. `poke()` asks for a turn.
   */
  betweenCatchUps?: (client: ImapFlow, state: ConnectorState) => Promise<boolean>;
  /** The built-in OAuth2 refresh of imap.auth (a refused login asks it for a fresh token). */
  tokens?: OAuth2Tokens;
}

type Handle = (raw: Buffer, uid: number) => Promise<void>;

export class MailHandling {
  readonly #handle: Handle;
  readonly #group: WatcherOptions['handleGroup'];
  readonly #prepare: WatcherOptions['prepare'];
  readonly #logger: Logger;
  readonly #maxFailures: number;
  readonly #onGiveUp: (raw: Buffer, uid: number, error: unknown) => Promise<void>;
  /** The UID the handler failed on last, and how many times in a row (kept across sessions). */
  #failing: { uidValidity: string; uid: number; count: number } | undefined;

  constructor(handle: Handle, logger: Logger, options: WatcherOptions) {
    this.#handle = handle;
    this.#group = options.handleGroup;
    this.#prepare = options.prepare;
    this.#logger = logger;
    this.#maxFailures = Math.max(1, options.maxHandlerFailures ?? DEFAULT_MAX_HANDLER_FAILURES);
    this.#onGiveUp =
      options.onGiveUp ??
      (async (_raw, uid, error) => {
        const message = error instanceof Error ? error.message : String(error);
        this.#logger.error({ uid, err: { message } }, 'mail given up after repeated failures, not recorded as skipped');
      });
  }

  /** Tells the one-by-one handler the next mail ahead (it starts parsing it). */
  prepare(raw: Buffer): void {
    this.#prepare?.(raw);
  }

  /** The group handled at once: true when it was; false when there is no group handler or it failed (then one by one). */
  async tryGroup(batch: readonly { uid: number; source: Buffer }[], signal: AbortSignal): Promise<boolean> {
    if (!this.#group || batch.length < 2) return false;
    try {
      await this.#group(batch.map(({ uid, source }) => ({ uid, raw: source })));
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      this.#logger.info({ first_uid: batch[0]?.uid, mails: batch.length, err: { message } }, 'a downloaded group failed as a whole; handling its mails one by one');
      return false;
    }
  }

  /** Runs the handler on one mail: true when handled, false when given up (see the module comment); throws to retry. */
  async handleOne(raw: Buffer, uid: number, uidValidity: string, signal: AbortSignal): Promise<boolean> {
    try {
      await this.#handle(raw, uid);
      if (this.#failing?.uid === uid) this.#failing = undefined;
      return true;
    } catch (err) {
      if (signal.aborted) throw err;
      const before = this.#failing;
      const count = before && before.uid === uid && before.uidValidity === uidValidity ? before.count + 1 : 1;
      this.#failing = { uidValidity, uid, count };
      const message = err instanceof Error ? err.message : String(err);
      if (count < this.#maxFailures) {
        throw new MailHandlingError(`handling UID ${uid} failed (${count} of ${this.#maxFailures} tries): ${message}`, { cause: err });
      }
      this.#logger.warn({ uid, failures: count, err: { message, code: (err as { code?: string } | null)?.code } }, 'giving up on a mail the handler keeps failing on');
      await this.#onGiveUp(raw, uid, err);
      this.#failing = undefined;
      return false;
    }
  }
}
