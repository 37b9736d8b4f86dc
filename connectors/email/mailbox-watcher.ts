/**
 * Watching the mailbox: connect with imapflow, open the mailbox, catch up on
 * every UID after the cursor, then wait for the server's IDLE notice (or
 * poll every `poll_seconds` when it has no IDLE, and as a safety net when it
 * has), and again. The cursor `(UIDVALIDITY, last UID)` lives in the
 * connector's state and moves only after the mails before it were handled
 * (submitted or recorded as skipped); it is stored once per downloaded group
 * — so a crash or a dropped connection re-reads at most that group, which
 * the bridge's dedup absorbs. A new UIDVALIDITY
 * rescans the mailbox from the start, without duplicates for the same reason.
 * Any failure closes the connection and reconnects after a capped backoff.
 * Before each catch-up the session does `betweenCatchUps` (the Sent copies of
 * replies, sent-copies.ts), which `poke()` asks for at once.
 *
 * Memory: catching up (catch-up.ts) downloads the raw mails in groups of at
 * most `maxGroupMails` (100) whose sizes add up to at most `maxGroupBytes` (8
 * MiB; a single bigger mail is a group of its own) and handles each group, in
 * UID order, before downloading the next. So at most one group of raw mail
 * (or one big mail) is held at a time. With `handleGroup` a group is handled
 * at once (the e-mail connector: one store write for the group); should that
 * fail, its mails are handled one by one.
 *
 * A mail the handler keeps failing on must not stall the mailbox. An error
 * thrown by the handler (not by IMAP: those are connection problems and are
 * retried forever) ends the session like any failure, and the watcher counts
 * it, in memory, per UID: on the `maxHandlerFailures`-th (3rd) consecutive
 * failure of the same UID — across sessions, as each failure reconnects — it
 * gives the mail up: `onGiveUp(raw, uid, error)` records it (the connector
 * records it with `ctx.skip`; without a callback it is logged at error
 * level), the cursor moves past it and it is left where it is in the mailbox
 * (no `after_import`), for a person to look at. A success of that UID, or a
 * failure of another one, starts the count again; a restart forgets it (the
 * mail gets its 3 tries again). Should `onGiveUp` throw, nothing moves and the
 * UID is tried again on the next session. A handler error while the watcher is
 * stopping is not counted.
 */
import { ImapFlow } from 'imapflow';
import { sleep, type ConnectorState, type Logger } from '../../src/connector/api.ts';
import { imapAuth } from './imap-auth.ts';
import type { EmailConnectorConfig } from './config.ts';
import { MailHandling, type WatcherOptions } from './mail-handling.ts';
import { CatchUp, CURSOR_KEY, type Cursor } from './catch-up.ts';
import { describeImapError, imapErrorForLog, MailHandlingError, UidValidityChangedError } from './watcher-parts.ts';

export type { WatcherOptions } from './mail-handling.ts';

export type { Cursor } from './catch-up.ts';

export const DEFAULT_MAX_GROUP_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_GROUP_MAILS = 100;
const AUTO_IDLE_DELAY_MS = 250;

export interface WatcherStatus {
  connected: boolean;
  idle: boolean;
  lastUid: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  reconnects: number;
}

export class MailboxWatcher {
  readonly #config: EmailConnectorConfig;
  /** Where the cursor lives: the state given to `run` (the connector's poll: fenced by its lease). */
  #state: ConnectorState;
  readonly #logger: Logger;
  readonly #catchUp: CatchUp;
  readonly #betweenCatchUps: WatcherOptions['betweenCatchUps'];
  readonly #tokens: WatcherOptions['tokens'];
  /** The last login was refused: the next one asks for a fresh OAuth2 token. */
  #renewToken = false;
  /** Ends the session's wait for new mail (set while a session runs). */
  #poke: () => void = () => {};
  readonly status: WatcherStatus = { connected: false, idle: false, lastUid: null, lastError: null, lastErrorAt: null, reconnects: 0 };
  #client: ImapFlow | undefined;

  constructor(
    config: EmailConnectorConfig,
    state: ConnectorState,
    logger: Logger,
    handle: (raw: Buffer, uid: number) => Promise<void>,
    options: WatcherOptions = {},
  ) {
    this.#config = config;
    this.#state = state;
    this.#logger = logger;
    this.#catchUp = new CatchUp({
      maxGroupBytes: options.maxGroupBytes ?? DEFAULT_MAX_GROUP_BYTES,
      maxGroupMails: Math.max(1, options.maxGroupMails ?? DEFAULT_MAX_GROUP_MAILS),
      afterImport: config.after_import,
      handling: new MailHandling(handle, logger, options),
      state: () => this.#state,
      onUid: (uid) => (this.status.lastUid = uid),
    });
    this.#betweenCatchUps = options.betweenCatchUps;
    this.#tokens = options.tokens;
  }

  /** Asks the session for a turn now (its `betweenCatchUps` work is waiting) instead of at the next mail or poll. */
  poke(): void {
    this.#poke();
  }

  /** Runs until `signal` aborts; never throws. `state`, when given, keeps the cursor from now on. */
  async run(signal: AbortSignal, state?: ConnectorState): Promise<void> {
    if (state) this.#state = state;
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.#session(signal);
        failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        this.#renewToken = (err as { authenticationFailed?: boolean }).authenticationFailed === true;
        // A session that got as far as the open mailbox worked: the backoff starts again from its first step.
        failures = this.status.connected ? 1 : failures + 1;
        this.status.lastError = describeImapError(err);
        this.status.lastErrorAt = new Date().toISOString();
        const what = err instanceof MailHandlingError ? 'mail handling failed, reconnecting' : 'mailbox connection failed';
        this.#logger.warn({ err: imapErrorForLog(err), failures }, what);
      } finally {
        this.status.connected = false;
        this.status.idle = false;
      }
      if (signal.aborted) break;
      this.status.reconnects += 1;
      const capMs = this.#config.reconnect_max_seconds * 1000;
      const delay = Math.min(capMs, 500 * 2 ** Math.min(failures, 10));
      await sleep(delay / 2 + Math.random() * (delay / 2), signal);
    }
  }

  /** Closes the connection at once (stop). */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client) client.close();
  }

  async #session(signal: AbortSignal): Promise<void> {
    const { imap } = this.#config;
    const client = new ImapFlow({
      host: imap.host,
      port: imap.port,
      secure: imap.secure,
      auth: await imapAuth(imap, this.#tokens, this.#renewToken),
      logger: false,
      // IDLE as soon as the connection rests (imapflow's default waits 15 s), so new mail is seen at once.
      autoIdleDelay: AUTO_IDLE_DELAY_MS,
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
    });
    this.#client = client;
    // `exists` may come while catching up: remember it, so the next wait ends at once.
    let noticedSince = false;
    let wake: () => void = () => (noticedSince = true);
    let closed: (err: Error) => void = () => {};
    const closedPromise = new Promise<never>((_, reject) => (closed = reject));
    closedPromise.catch(() => {});
    client.on('error', (err: Error) => closed(err));
    client.on('close', () => closed(new Error('the IMAP connection closed')));
    client.on('exists', () => wake());
    this.#poke = () => wake();
    const onAbort = () => client.close();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect();
      await this.#ensureMoveTarget(client);
      const box = await client.mailboxOpen(imap.mailbox);
      this.status.connected = true;
      const hasIdle = client.capabilities.has('IDLE');
      const cursor = await this.#cursorFor(String(box.uidValidity));
      this.#logger.info({ mailbox: imap.mailbox, uid_validity: cursor.uidValidity, last_uid: cursor.lastUid, idle: hasIdle }, 'mailbox open');
      while (!signal.aborted) {
        noticedSince = false;
        if (await this.#betweenCatchUps?.(client, this.#state)) await this.#checkValidity(client, cursor.uidValidity);
        await this.#catchUp.run(client, cursor, signal);
        if (noticedSince) continue;
        this.status.idle = hasIdle;
        const noticed = new Promise<void>((resolve) => (wake = resolve));
        const woken = await Promise.race([noticed.then(() => true), sleep(this.#config.poll_seconds * 1000, signal).then(() => false), closedPromise]);
        wake = () => (noticedSince = true);
        this.status.idle = false;
        // A poll also selects the mailbox again: one deleted and recreated under a session
        // shows nothing new to that session, only to a new SELECT of its name.
        if (!woken && !signal.aborted) await this.#checkValidity(client, cursor.uidValidity);
      }
    } finally {
      this.#poke = () => {};
      signal.removeEventListener('abort', onAbort);
      if (this.#client === client) this.#client = undefined;
      if (client.usable) await client.logout().catch(() => client.close());
      else client.close();
    }
  }

  /** Selects the mailbox again: a new UIDVALIDITY under its name ends the session (and so rescans). */
  async #checkValidity(client: ImapFlow, selected: string): Promise<void> {
    const box = await client.mailboxOpen(this.#config.imap.mailbox);
    if (String(box.uidValidity) !== selected) {
      throw new UidValidityChangedError(`UIDVALIDITY of ${this.#config.imap.mailbox} changed under the session (${selected} → ${String(box.uidValidity)})`);
    }
  }

  /** The folder of `after_import: move:<folder>`, created when missing. */
  async #ensureMoveTarget(client: ImapFlow): Promise<void> {
    const action = this.#config.after_import;
    if (!action.startsWith('move:')) return;
    const folder = action.slice('move:'.length);
    const list = await client.list();
    if (list.some((m) => m.path === folder)) return;
    await client.mailboxCreate(folder);
    this.#logger.info({ folder }, 'created the folder imported mail is moved to');
  }

  async #cursorFor(uidValidity: string): Promise<Cursor> {
    const stored = await this.#state.get<Cursor>(CURSOR_KEY);
    if (stored && stored.uidValidity === uidValidity) return { ...stored };
    if (stored) this.#logger.warn({ before: stored.uidValidity, now: uidValidity }, 'UIDVALIDITY changed: rescanning the mailbox');
    const fresh = { uidValidity, lastUid: 0 };
    await this.#state.set(CURSOR_KEY, fresh);
    return fresh;
  }
}
