/**
 * One raw mail from the mailbox to the bridge: parse it, skip what must
 * never be posted (with the reason), find its thread, submit it, and remember
 * what replies need (customer, subject, Message-ID chain). Idempotent: the
 * same mail read twice is a duplicate submit and changes nothing else.
 */
import type { ConnectorContext } from '../../src/connector/api.ts';
import { parseMail, type ParsedMail } from './parse-mail.ts';
import { replyToken, tokenReference } from './reply-token.ts';
import { readThreadInfo, withReferences, writeThreadInfo } from './thread-info.ts';
import { resolveThread } from './threading.ts';

/** Every mail the gateway sends carries this header naming the connector. */
export const OWN_HEADER = 'X-Threadgate-Connector';

export type IntakeOutcome =
  | { kind: 'submitted'; threadKey: string; duplicate: boolean; via: string }
  | { kind: 'skipped'; code: string; reason: string };

export class MailIntake {
  readonly #ctx: ConnectorContext;
  readonly #address: string;

  constructor(ctx: ConnectorContext, supportAddress: string) {
    this.#ctx = ctx;
    this.#address = supportAddress;
  }

  async take(raw: Buffer): Promise<IntakeOutcome> {
    const mail = await parseMail(raw, { ownHeaderName: OWN_HEADER });
    const sender = mail.from?.address;
    if (mail.skip) return this.#skip(mail, mail.skip.code, mail.skip.reason);
    if (sender === undefined) return this.#skip(mail, 'TG_EMAIL_NO_SENDER', 'no From address');
    if (sender === this.#address) return this.#skip(mail, 'TG_EMAIL_OWN', 'sent from the support address itself');

    const recipients = [...mail.to, ...mail.cc, ...(mail.deliveredTo ? [mail.deliveredTo] : [])].map((a) => a.address);
    const match = await resolveThread(
      { messageId: mail.messageId, inReplyTo: mail.inReplyTo, references: mail.references, recipients },
      this.#ctx.threads,
      this.#address,
    );
    const known = await readThreadInfo(this.#ctx.state, match.key);
    const subject = known?.subject ?? mail.subject;
    const first = known === undefined;
    const result = await this.#ctx.submit({
      threadKey: match.key,
      messageId: mail.messageId,
      senderId: sender,
      ...(mail.from?.name ? { senderName: mail.from.name } : {}),
      body: first && mail.subject !== '' ? `${mail.subject}\n\n${mail.body}` : mail.body,
      fullText: mail.fullText,
      variables: { email: sender, name: mail.from?.name ?? null, subject: mail.subject },
      references: [mail.messageId, tokenReference(replyToken(match.key))],
    });
    // A mail read again (a rescan) must not move the chain backwards; a first read, or one whose state write was lost, sets it.
    if (!result.duplicate || known === undefined) {
      const base = {
        customer: { address: sender, ...(mail.from?.name ? { name: mail.from.name } : {}) },
        subject,
        lastMessageId: mail.messageId,
        references: known?.references ?? [],
      };
      await writeThreadInfo(this.#ctx.state, match.key, withReferences(base, [mail.messageId]));
    }
    return { kind: 'submitted', threadKey: match.key, duplicate: result.duplicate, via: match.via };
  }

  async #skip(mail: ParsedMail, code: string, reason: string): Promise<IntakeOutcome> {
    await this.#ctx.skip({
      messageId: mail.messageId,
      code,
      reason,
      ...(mail.from?.address ? { senderId: mail.from.address } : {}),
      ...(mail.subject ? { summary: mail.subject } : {}),
    });
    return { kind: 'skipped', code, reason };
  }
}
