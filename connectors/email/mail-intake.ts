/**
 * Raw mail from the mailbox to the bridge: parse it, skip what must never be
 * posted (with the reason), find its thread, submit it, and remember what
 * replies need (customer, subject, Message-ID chain). Idempotent: the same
 * mail read twice is a duplicate submit and changes nothing else.
 *
 * `take` handles one mail; `takeGroup` a downloaded group in ONE store write
 * (`ctx.submitAll`), each mail threaded against the group's earlier ones in
 * memory (group-view.ts). A group is all or nothing: when it fails, the
 * watcher takes its mails one by one, which isolates a bad one.
 *
 * The gateway's own mail coming back (a Bcc, a forwarding rule, a list) is
 * skipped as `TG_EMAIL_OWN` by any of: our header `X-Threadgate-Connector`
 * (noise.ts), our Message-ID form `<tg.<32 hex>@<support domain>>`, or a From
 * of the support address itself. None of this relies on `Auto-Submitted`,
 * which people's replies do not carry.
 *
 * No mail may stall the mailbox, whatever its size or headers: ids, sender
 * and text are fitted to the bridge's limits first (fit-limits.ts), and
 * whatever `submit` still refuses with `TG_SUBMIT_INVALID` is recorded
 * with `ctx.skip` as `TG_EMAIL_UNSUBMITTABLE` (the error's message as the
 * reason), so the watcher's cursor moves on. `recordUnhandled` records a mail
 * the watcher gave up on (see mailbox-watcher.ts) as `TG_EMAIL_UNHANDLED`.
 */
import type { ConnectorContext, SubmitMessage } from '../../src/connector/api.ts';
import { keptFileLines, type AttachmentLimits } from './attachment-files.ts';
import { fitAddress, fitBody, fitFullText, fitMessageId } from './fit-limits.ts';
import { groupView, storeView, type GroupView } from './group-view.ts';
import { isOwnMessageId } from './message-ids.ts';
import { parseMail, type ParseMailOptions, type ParsedMail } from './parse-mail.ts';
import { SkipCode } from './parsed-mail.ts';
import { replyToken, tokenReference } from './reply-token.ts';
import { threadCc } from './reply-all.ts';
import { readThreadInfo, threadInfoEntry, withReferences, writeThreadInfo, type ThreadInfo } from './thread-info.ts';
import { resolveThread, type ThreadMatch } from './threading.ts';

/** Every mail the gateway sends carries this header naming the connector. */
export const OWN_HEADER = 'X-Threadgate-Connector';

export const UNSUBMITTABLE = 'TG_EMAIL_UNSUBMITTABLE';
export const UNHANDLED = 'TG_EMAIL_UNHANDLED';
/** Mails of a group parsed at once. */
const PARSE_CONCURRENCY = 4;

export type IntakeOutcome =
  | { kind: 'submitted'; threadKey: string; duplicate: boolean; via: string }
  | { kind: 'skipped'; code: string; reason: string };

const isSubmitInvalid = (err: unknown) => (err as { code?: unknown } | null)?.code === 'TG_SUBMIT_INVALID';
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What the intake reads of a parsed mail, with every id fitted to the bridge's limits. */
interface Fitted {
  mail: ParsedMail;
  messageId: string;
  /** The sender id (fitted); undefined when the mail has no From address. */
  senderId: string | undefined;
}

/** What to do with one parsed mail. */
type Plan =
  | { kind: 'skip'; fitted: Fitted; code: string; reason: string }
  | { kind: 'submit'; key: string; via: ThreadMatch['via']; known: ThreadInfo | undefined; info: ThreadInfo; message: SubmitMessage; fitted: Fitted };

type SubmitPlan = Extract<Plan, { kind: 'submit' }>;

const NOT_KEPT: AttachmentLimits = { keep: false, max_file_bytes: 0, max_mail_bytes: 0 };

export class MailIntake {
  readonly #ctx: ConnectorContext;
  readonly #address: string;
  readonly #domain: string;
  readonly #parseOptions: ParseMailOptions;
  readonly #parsing = new WeakMap<Buffer, Promise<ParsedMail>>();
  readonly #attachments: AttachmentLimits;

  /** `attachments`: which files are kept and linked (default: none kept, listed by name as before). */
  constructor(ctx: ConnectorContext, supportAddress: string, acceptListIds: readonly string[] = [], attachments: AttachmentLimits = NOT_KEPT) {
    this.#ctx = ctx;
    this.#attachments = attachments;
    this.#address = supportAddress;
    this.#domain = supportAddress.slice(supportAddress.lastIndexOf('@') + 1);
    this.#parseOptions = { ownHeaderName: OWN_HEADER, acceptListIds };
  }

  /**
   * Starts parsing a mail that `take` will get next, so its parse overlaps the
   * store's commit of the mail before it. At most the mails announced and not
   * yet taken are held (the watcher announces one ahead).
   */
  prepare(raw: Buffer): void {
    if (this.#parsing.has(raw)) return;
    const parsing = parseMail(raw, this.#parseOptions);
    parsing.catch(() => {}); // surfaces in `take`
    this.#parsing.set(raw, parsing);
  }

  async take(raw: Buffer): Promise<IntakeOutcome> {
    const prepared = this.#parsing.get(raw);
    this.#parsing.delete(raw);
    const plan = await this.#plan(await (prepared ?? parseMail(raw, this.#parseOptions)), storeView(this.#ctx));
    if (plan.kind === 'skip') return this.#skip(plan);
    let result;
    try {
      // The thread info goes with a new message, in its own write.
      result = await this.#ctx.submit(plan.message, { state: threadInfoEntry(plan.key, plan.info) });
    } catch (err) {
      // Refused for what it is, not for the state of the store: it would be refused forever.
      if (isSubmitInvalid(err)) return this.#skip({ kind: 'skip', fitted: plan.fitted, code: UNSUBMITTABLE, reason: messageOf(err) });
      throw err;
    }
    // A mail read again (a rescan) must not move the chain backwards (the state went with the message only when it
    // was new); a duplicate whose thread has no state yet (an older store) sets it.
    if (result.duplicate && plan.known === undefined) await writeThreadInfo(this.#ctx.state, plan.key, plan.info);
    return { kind: 'submitted', threadKey: plan.key, duplicate: result.duplicate, via: plan.via };
  }

  /**
   * A downloaded group in UID order: its skips recorded and its messages submitted in one `submitAll`, each
   * threaded against the group's earlier mails. Throws when anything failed (a mail `submit` refuses included):
   * the caller then takes the mails one by one, and the bridge's dedup absorbs what the group did store.
   */
  async takeGroup(raws: readonly Buffer[]): Promise<IntakeOutcome[]> {
    const mails = await parseAll(raws, (raw) => parseMail(raw, this.#parseOptions));
    const view = groupView(this.#ctx);
    const plans: Plan[] = [];
    for (const mail of mails) {
      const plan = await this.#plan(mail, view);
      if (plan.kind === 'submit') view.add(plan.key, plan.message.references ?? [], plan.info);
      plans.push(plan);
    }
    const submits = plans.filter((plan): plan is SubmitPlan => plan.kind === 'submit');
    const skips = plans.filter((plan) => plan.kind === 'skip');
    const [submitted, ...skipped] = await Promise.allSettled([
      this.#ctx.submitAll(submits.map((plan) => ({ message: plan.message, state: threadInfoEntry(plan.key, plan.info) }))),
      ...skips.map((plan) => this.#skip(plan)),
    ]);
    const failed = [submitted, ...skipped].find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const results = (submitted as PromiseFulfilledResult<Awaited<ReturnType<ConnectorContext['submitAll']>>>).value;
    // As in `take`: a duplicate whose thread has no state yet sets it (read after the commit, so not over a new one).
    for (const [i, plan] of submits.entries()) {
      if (results[i]?.duplicate && (await readThreadInfo(this.#ctx.state, plan.key)) === undefined) await writeThreadInfo(this.#ctx.state, plan.key, plan.info);
    }
    const outcomes = new Map<Plan, IntakeOutcome>();
    for (const [i, plan] of submits.entries()) outcomes.set(plan, { kind: 'submitted', threadKey: plan.key, duplicate: results[i]?.duplicate === true, via: plan.via });
    for (const plan of skips) outcomes.set(plan, { kind: 'skipped', code: plan.code, reason: plan.reason });
    return plans.map((plan) => outcomes.get(plan) as IntakeOutcome);
  }

  /** Whether a mail is skipped (and why), or its thread, thread info and the message to submit. */
  async #plan(mail: ParsedMail, view: Pick<GroupView, 'threads' | 'infoOf'>): Promise<Plan> {
    const fitted = fit(mail);
    const skip = (code: string, reason: string): Plan => ({ kind: 'skip', fitted, code, reason });
    const sender = mail.from?.address;
    // Our own mail come back with our header stripped (and From rewritten) by a forwarder or list still has our Message-ID.
    if (isOwnMessageId(mail.messageId, this.#domain)) return skip(SkipCode.own, `Message-ID ${mail.messageId} is one the gateway gave its own mail`);
    if (mail.skip) return skip(mail.skip.code, mail.skip.reason);
    if (sender === undefined || fitted.senderId === undefined) return skip('TG_EMAIL_NO_SENDER', 'no From address');
    if (sender === this.#address) return skip(SkipCode.own, 'sent from the support address itself');
    const { messageId, senderId } = fitted;

    const recipients = [...mail.to, ...mail.cc, ...(mail.deliveredTo ? [mail.deliveredTo] : [])].map((a) => a.address);
    const match = await resolveThread(
      { messageId, inReplyTo: mail.inReplyTo.map(fitMessageId), references: mail.references.map(fitMessageId), recipients },
      view.threads,
      this.#address,
    );
    const known = await view.infoOf(match.key);
    // Reply-all: whoever wrote before and the mail's To and Cc stay on the thread, in Cc of the replies.
    const previous = known === undefined ? [] : [known.customer, ...(known.cc ?? [])];
    const cc = threadCc(this.#address, sender, previous, mail);
    const info = withReferences(
      {
        customer: { address: sender, ...(mail.from?.name ? { name: mail.from.name } : {}) },
        ...(cc.length > 0 ? { cc } : {}),
        subject: known?.subject ?? mail.subject,
        lastMessageId: messageId,
        references: known?.references ?? [],
      },
      [messageId],
    );
    const message: SubmitMessage = {
      threadKey: match.key,
      messageId,
      senderId,
      ...(mail.from?.name ? { senderName: mail.from.name } : {}),
      body: fitBody(known === undefined && mail.subject !== '' ? `${mail.subject}\n\n${mail.text}` : mail.text, await keptFileLines(mail.files, this.#attachments, this.#ctx.files)),
      fullText: fitFullText(mail.fullText),
      variables: { email: senderId, name: mail.from?.name ?? null, subject: mail.subject },
      references: [messageId, tokenReference(replyToken(match.key))],
    };
    return { kind: 'submit', key: match.key, via: match.via, known, info, message, fitted };
  }

  /** Records a mail whose handling kept failing (the watcher gave up on it) as skipped, with the last error. */
  async recordUnhandled(raw: Buffer, error: unknown): Promise<IntakeOutcome> {
    const mail = await parseMail(raw, this.#parseOptions);
    return this.#skip({ kind: 'skip', fitted: fit(mail), code: UNHANDLED, reason: `handling failed repeatedly: ${messageOf(error)}` });
  }

  async #skip({ fitted: { mail, messageId, senderId }, code, reason }: Extract<Plan, { kind: 'skip' }>): Promise<IntakeOutcome> {
    await this.#ctx.skip({
      messageId,
      code,
      reason,
      ...(senderId ? { senderId } : {}),
      ...(mail.subject ? { summary: mail.subject } : {}),
    });
    return { kind: 'skipped', code, reason };
  }
}

function fit(mail: ParsedMail): Fitted {
  const address = mail.from?.address;
  return { mail, messageId: fitMessageId(mail.messageId), senderId: address ? fitAddress(address) : undefined };
}

/** Parses the group's mails, a few at a time, in their order. */
async function parseAll(raws: readonly Buffer[], parse: (raw: Buffer) => Promise<ParsedMail>): Promise<ParsedMail[]> {
  const mails: ParsedMail[] = new Array(raws.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < raws.length; i = next++) mails[i] = await parse(raws[i] as Buffer);
  };
  await Promise.all(Array.from({ length: Math.min(PARSE_CONCURRENCY, raws.length) }, worker));
  return mails;
}
