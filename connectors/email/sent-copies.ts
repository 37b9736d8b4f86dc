/**
 * A copy of each reply in the mailbox's Sent folder (`sent_copy`, on by
 * default), so the team sees the conversation in their mail client as if they
 * had answered from it.
 *
 * A reply may be sent by any replica (its delivery job runs anywhere), but the
 * mailbox has one IMAP session, the poller's, on the replica holding its lease.
 * So the sender queues the exact bytes it sent in the connector's state
 * (`sent-copy:<Message-ID>`, written after SMTP accepted them) and asks the
 * holder for a turn (`ctx.wakePoller()`); the holder appends them in its
 * session, between catch-ups: no second session, and a
 * copy queued survives a restart. Before appending, the Message-ID is looked
 * up in the folder: a provider that files SMTP-sent mail itself (Gmail,
 * Microsoft 365) already has it, and a copy appended just before a crash is
 * not appended twice. A copy that cannot be appended (the folder refused, the
 * server full) is logged and tried again five minutes later; it never holds
 * up the mail coming in.
 */
import type { ImapFlow } from 'imapflow';
import type { ConnectorState, Logger } from '../../src/connector/api.ts';
import { describeImapError, imapErrorForLog } from './watcher-parts.ts';

export const SENT_COPY_PREFIX = 'sent-copy:';
/** Copies appended per turn of the session. */
const BATCH = 50;
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;

interface QueuedCopy {
  /** The message as sent, base64. */
  raw: string;
  /** When it was sent (the copy's internal date). */
  sentAt: number;
}

/** Queues the copy of a reply (`raw`, as handed to SMTP) for the mailbox's poller. */
export async function queueSentCopy(state: ConnectorState, messageId: string, raw: Buffer, sentAt = Date.now()): Promise<void> {
  const copy: QueuedCopy = { raw: raw.toString('base64'), sentAt };
  await state.set(`${SENT_COPY_PREFIX}${messageId}`, copy);
}

export interface SentCopiesStatus {
  appended: number;
  /** Copies the folder already held (filed by the provider, or appended before a crash). */
  alreadyThere: number;
  lastError: string | null;
}

export class SentCopies {
  readonly #folderSetting: string | undefined;
  readonly #logger: Logger;
  #notBefore = 0;
  readonly status: SentCopiesStatus = { appended: 0, alreadyThere: 0, lastError: null };

  constructor(folder: string | undefined, logger: Logger) {
    this.#folderSetting = folder;
    this.#logger = logger;
  }

  /**
   * Appends what is queued, in the session of `client`. Answers whether it selected another mailbox (the caller
   * selects its own again). Never throws for a copy's sake; a dropped connection shows on the caller's next command.
   */
  async flush(client: ImapFlow, state: ConnectorState): Promise<boolean> {
    if (Date.now() < this.#notBefore) return false;
    const keys = await state.keys(SENT_COPY_PREFIX, BATCH);
    if (keys.length === 0) return false;
    try {
      const folder = await this.#folder(client);
      // Read-write: in a folder selected read-only, imapflow drops the \Seen flag of an APPEND to it.
      await client.mailboxOpen(folder);
      for (const key of keys) {
        const copy = await state.get<QueuedCopy>(key);
        if (copy !== undefined) await this.#append(client, folder, key.slice(SENT_COPY_PREFIX.length), copy);
        await state.delete(key);
      }
      this.status.lastError = null;
    } catch (err) {
      this.status.lastError = describeImapError(err);
      // The connection gone: the session reconnects, and the copies go with the next one.
      if (!client.usable) return true;
      this.#notBefore = Date.now() + RETRY_AFTER_FAILURE_MS;
      this.#logger.warn({ err: imapErrorForLog(err) }, 'copying replies to the Sent folder failed; trying again in 5 minutes');
    }
    return true;
  }

  async #append(client: ImapFlow, folder: string, messageId: string, copy: QueuedCopy): Promise<void> {
    const found = await client.search({ header: { 'message-id': messageId } }, { uid: true });
    if (found && found.length > 0) {
      this.status.alreadyThere += 1;
      return;
    }
    await client.append(folder, Buffer.from(copy.raw, 'base64'), ['\\Seen'], new Date(copy.sentAt));
    this.status.appended += 1;
  }

  /** The configured folder, else the one marked \Sent, else `Sent` (created when missing). */
  async #folder(client: ImapFlow): Promise<string> {
    const list = await client.list();
    const wanted = this.#folderSetting ?? list.find((m) => m.specialUse === '\\Sent')?.path ?? 'Sent';
    if (!list.some((m) => m.path === wanted)) {
      await client.mailboxCreate(wanted);
      this.#logger.info({ folder: wanted }, 'created the folder copies of replies go to');
    }
    return wanted;
  }
}
