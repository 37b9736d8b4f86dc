/**
 * Watching the mailbox: connect with imapflow, open the mailbox, catch up on
 * every UID after the cursor, then wait for the server's IDLE notice (or
 * poll every `poll_seconds` when it has no IDLE, and as a safety net when it
 * has), and again. The cursor `(UIDVALIDITY, last UID)` lives in the
 * connector's state and moves only after a mail was handled (submitted or
 * recorded as skipped) — so a crash or a dropped connection re-reads at most
 * the mail in hand, which the bridge's dedup absorbs. A new UIDVALIDITY
 * rescans the mailbox from the start, without duplicates for the same reason.
 * Any failure closes the connection and reconnects after a capped backoff.
 */
import { ImapFlow } from 'imapflow';
import type { ConnectorState, Logger } from '../../src/connector/api.ts';
import { imapAuth } from './imap-auth.ts';
import type { EmailConnectorConfig } from './config.ts';

export class UidValidityChangedError extends Error {
  readonly code = 'TG_EMAIL_UIDVALIDITY_CHANGED';
}

export interface Cursor {
  uidValidity: string;
  lastUid: number;
}

const CURSOR_KEY = 'cursor';
const FETCH_BATCH = 50;
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
  readonly #state: ConnectorState;
  readonly #logger: Logger;
  readonly #handle: (raw: Buffer, uid: number) => Promise<void>;
  readonly status: WatcherStatus = { connected: false, idle: false, lastUid: null, lastError: null, lastErrorAt: null, reconnects: 0 };
  #client: ImapFlow | undefined;

  constructor(config: EmailConnectorConfig, state: ConnectorState, logger: Logger, handle: (raw: Buffer, uid: number) => Promise<void>) {
    this.#config = config;
    this.#state = state;
    this.#logger = logger;
    this.#handle = handle;
  }

  /** Runs until `signal` aborts; never throws. */
  async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      try {
        await this.#session(signal);
        failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        failures += 1;
        this.status.lastError = describeImapError(err);
        this.status.lastErrorAt = new Date().toISOString();
        this.#logger.warn({ err: { message: (err as Error).message, code: (err as { code?: string }).code }, failures }, 'mailbox connection failed');
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
      auth: await imapAuth(imap),
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
        await this.#catchUp(client, cursor, signal);
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

  async #catchUp(client: ImapFlow, cursor: Cursor, signal: AbortSignal): Promise<void> {
    for (;;) {
      const found = await client.search({ uid: `${cursor.lastUid + 1}:*` }, { uid: true });
      // `N:*` always names the highest UID, even one below N.
      const uids = (found || []).filter((uid) => uid > cursor.lastUid).sort((a, b) => a - b).slice(0, FETCH_BATCH);
      if (uids.length === 0) return;
      const batch: { uid: number; source: Buffer }[] = [];
      for await (const msg of client.fetch(uids.join(','), { uid: true, source: true }, { uid: true })) {
        if (msg.source) batch.push({ uid: msg.uid, source: msg.source });
      }
      batch.sort((a, b) => a.uid - b.uid);
      for (const { uid, source } of batch) {
        if (signal.aborted) return;
        await this.#handle(source, uid);
        await this.#afterImport(client, uid);
        cursor.lastUid = uid;
        this.status.lastUid = uid;
        await this.#state.set(CURSOR_KEY, cursor);
      }
      if (batch.length === 0) cursor.lastUid = uids[uids.length - 1] as number; // expunged meanwhile
    }
  }

  async #afterImport(client: ImapFlow, uid: number): Promise<void> {
    const action = this.#config.after_import;
    if (action === 'seen') await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true });
    else if (action.startsWith('move:')) await client.messageMove(String(uid), action.slice('move:'.length), { uid: true });
  }
}

/** imapflow says only "Command failed" for a refused login; the server's own words are on the error. */
export function describeImapError(err: unknown): string {
  const e = err as { message?: string; authenticationFailed?: boolean; response?: string; responseText?: string };
  const server = e.responseText ?? e.response;
  if (e.authenticationFailed) return `IMAP authentication failed${server ? `: ${server}` : ''}`;
  if (e.message === 'Command failed' && server) return `IMAP command failed: ${server}`;
  return e.message ?? String(err);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
