/**
 * Agent replies out as e-mail: to the thread's customer, `Re: <subject>`,
 * In-Reply-To and References of the thread, Reply-To with the thread's
 * `+token`, and a Message-ID derived from the platform message id (the same
 * on every retry) that is attached to the thread so the customer's answer
 * finds its way back. The agent's files go as real attachments
 * (reply-files.ts), the text also as HTML (html-reply.ts), everyone on the
 * thread in Cc (reply-all.ts). A 5xx SMTP answer dead-letters with the
 * server's text; a refused login and anything else is retried.
 *
 * People write these replies, so they carry no `Auto-Submitted` (RFC 3834
 * reserves it for automatic mail; some systems drop or ignore such mail).
 * A copy coming back is recognised by our own header (`OWN_HEADER`, our
 * X-Loop) or our own Message-ID (`isOwnMessageId`), see mail-intake.ts.
 */
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import {
  PermanentDeliveryError,
  TransientDeliveryError,
  type ConnectorContext,
  type DeliverResult,
  type MessageCreatedEvent,
  type Thread,
} from '../../src/connector/api.ts';
import type { EmailConnectorConfig } from './config.ts';
import { replyHtml } from './html-reply.ts';
import { TokenCommandError } from './imap-auth.ts';
import { OWN_HEADER } from './mail-intake.ts';
import { ownMessageId } from './message-ids.ts';
import { OAuth2RefreshError } from './oauth2-tokens.ts';
import { replyFiles } from './reply-files.ts';
import { replyAddress, replyToken, tokenReference } from './reply-token.ts';
import { queueSentCopy } from './sent-copies.ts';
import { readThreadInfo, withReferences, writeThreadInfo } from './thread-info.ts';

export class SmtpRejectedError extends PermanentDeliveryError {
  override readonly code = 'TG_EMAIL_SMTP_REJECTED';
}

export class SmtpFailedError extends TransientDeliveryError {
  override readonly code = 'TG_EMAIL_SMTP_FAILED';
}

/** A Sent copy waits in the connector's state: one bigger than this is kept without its files (they are named in it). */
const MAX_SENT_COPY_BYTES = 4 * 1024 * 1024;

/** nodemailer, loaded at the first reply rather than at every start (20 ms and 6 MiB of it; docs/benchmarks.md at 65810b0, "The write path, fourteenth increment"). */
async function loadNodemailer() {
  const [nodemailer, composer] = await Promise.all([import('nodemailer'), import('nodemailer/lib/mail-composer/index.js')]);
  return { nodemailer: nodemailer.default, MailComposer: composer.default };
}
let library: ReturnType<typeof loadNodemailer> | undefined;
/** Loaded once; a failed load (files the process cannot open just now, say) is tried again by the next reply. */
const nodemailerLibrary = () =>
  (library ??= loadNodemailer().catch((err: unknown) => {
    library = undefined;
    throw err;
  }));

async function compose(mail: Mail.Options): Promise<Buffer> {
  const { MailComposer } = await nodemailerLibrary();
  return new MailComposer(mail).compile().build();
}

async function copyWithoutFiles(mail: Mail.Options): Promise<Buffer> {
  const names = (mail.attachments ?? []).map((a) => a.filename).join(', ');
  const text = `${String(mail.text)}\n\n[files sent with this reply, not kept in this copy: ${names}]`;
  return compose({ ...mail, text, html: replyHtml(text), attachments: [] });
}

const named = (a: { address: string; name?: string }) => (a.name ? { name: a.name, address: a.address } : a.address);

export function replySubject(subject: string): string {
  const bare = subject.trim();
  if (bare === '') return 'Re: your message';
  return /^(re|aw|sv|antw)\s*:/i.test(bare) ? bare : `Re: ${bare}`;
}

export class SmtpSender {
  readonly #transportOptions: SMTPTransport.Options;
  #transport: Transporter | undefined;
  readonly #config: EmailConnectorConfig;
  readonly #ctx: ConnectorContext;
  readonly #domain: string;
  readonly #onCopyQueued: () => void;

  /**
   * `onCopyQueued`: a reply's Sent copy was queued (the mailbox's poller can append it now). `oauth2`: the access
   * token for `smtp.auth` (`renew`: the server refused the last one), with its login user.
   */
  constructor(
    config: EmailConnectorConfig,
    ctx: ConnectorContext,
    options: { onCopyQueued?: () => void; oauth2?: { user: string; token: (renew: boolean) => Promise<string>; expiresAt: () => number } } = {},
  ) {
    this.#config = config;
    this.#ctx = ctx;
    this.#onCopyQueued = options.onCopyQueued ?? (() => {});
    this.#domain = config.address.slice(config.address.lastIndexOf('@') + 1);
    const { smtp } = config;
    const oauth2 = options.oauth2;
    this.#transportOptions = {
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
      // XOAUTH2 with a token of ours: nodemailer asks again with renew = true when the server refused it.
      ...(oauth2
        ? {
            auth: {
              type: 'OAuth2' as const,
              user: oauth2.user,
              provisionCallback: (_user: string, renew: boolean, done: (err: Error | null, token?: string, expires?: number) => void) =>
                void oauth2.token(renew).then((token) => done(null, token, oauth2.expiresAt()), (err: Error) => done(err)),
            },
          }
        : {}),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    };
  }

  /** The Message-ID of the mail for one platform message: stable across retries. */
  messageIdFor(platformMessageId: string): string {
    return ownMessageId(platformMessageId, this.#domain);
  }

  async send(event: MessageCreatedEvent, thread: Thread | undefined): Promise<DeliverResult> {
    if (!thread) throw new PermanentDeliveryError(`no thread is known for ${event.thread_id}: nobody to mail`);
    const info = await readThreadInfo(this.#ctx.state, thread.key);
    if (!info) throw new PermanentDeliveryError(`thread ${event.thread_id} has no customer address recorded`);
    const messageId = this.messageIdFor(event.message.id);
    const token = replyToken(thread.key);
    // Attached before sending, so an answer that arrives quickly finds the thread.
    await this.#ctx.threads.attach(thread.key, [messageId, tokenReference(token)]);
    const cc = this.#config.reply_all ? (info.cc ?? []) : [];
    const files = await replyFiles(event.message.attachments, this.#config.attachments, this.#ctx.attachments);
    const text = files.notSent.length > 0 ? `${event.message.message}\n\n${files.notSent.join('\n')}` : event.message.message;
    if (files.notSent.length > 0) this.#ctx.logger.warn({ thread_id: event.thread_id, not_sent: files.notSent }, 'reply goes without some of its files');
    const mail: Mail.Options = {
      from: this.#config.from_name ? { name: this.#config.from_name, address: this.#config.address } : this.#config.address,
      to: named(info.customer),
      ...(cc.length > 0 ? { cc: cc.map(named) } : {}),
      replyTo: replyAddress(this.#config.address, token),
      subject: replySubject(info.subject),
      text,
      html: replyHtml(text),
      ...(files.attachments.length > 0 ? { attachments: files.attachments } : {}),
      messageId,
      inReplyTo: info.lastMessageId,
      references: info.references,
      headers: { [OWN_HEADER]: this.#ctx.name },
    };
    // Built here rather than by the transport: the same bytes go to SMTP and, as the Sent copy, to the mailbox.
    const raw = await compose(mail);
    const envelope = { from: this.#config.address, to: [info.customer.address, ...cc.map((c) => c.address)] };
    try {
      const { nodemailer } = await nodemailerLibrary();
      // Made after the await: two first replies at once share one transport.
      this.#transport ??= nodemailer.createTransport(this.#transportOptions);
      await this.#transport.sendMail({ envelope, raw });
    } catch (err) {
      throw this.#classify(err);
    }
    await writeThreadInfo(this.#ctx.state, thread.key, withReferences(info, [messageId]));
    if (this.#config.sent_copy) {
      await queueSentCopy(this.#ctx.state, messageId, raw.length <= MAX_SENT_COPY_BYTES ? raw : await copyWithoutFiles(mail));
      this.#onCopyQueued();
    }
    return { externalId: messageId };
  }

  #classify(err: unknown): Error {
    const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
    const text = (e.response ?? e.message ?? String(err)).slice(0, 500);
    // A refused login (or an OAuth2 token that could not be had) is fixed by fixing credentials, not by giving up the reply.
    if (e.code === 'EAUTH' || err instanceof OAuth2RefreshError || err instanceof TokenCommandError) {
      return new SmtpFailedError(`SMTP login: ${text}`, { cause: err });
    }
    if (typeof e.responseCode === 'number' && e.responseCode >= 500) {
      return new SmtpRejectedError(`SMTP ${e.responseCode}: ${text}`, { cause: err });
    }
    return new SmtpFailedError(`SMTP ${e.responseCode ?? e.code ?? 'error'}: ${text}`, { cause: err });
  }

  close(): void {
    this.#transport?.close();
  }
}
