/**
 * `deliver`: an agent's reply as WhatsApp messages to the thread's customer
 * (thread key = wa_id) — the agent's files uploaded (reply-files.ts), then
 * the text in parts of 4,096 characters and the files (reply-parts.ts), each
 * `POST /{phone_number_id}/messages`.
 *
 * Exactly once per reply: the reply's progress (each file's media id, each
 * message's wamid) is kept in the connector's state under the event's own
 * key, `reply:<created_at> message_created:<message id>` (what the gateway
 * dedups webhooks on), written after each step. A second `deliver` of the
 * event (a retry, `attempt: 2`, an operator's replay) resumes after the last
 * step written and sends nothing already sent; a finished reply answers its
 * result again. The delivery's external id is the wamid of its first message.
 *
 * Outside the customer's 24-hour window WhatsApp refuses free-form messages
 * (131047). Without `template` that dead-letters the delivery with WhatsApp's
 * reason. With it, the template is sent instead — once until the customer
 * writes again — and the delivery is `skipped`, its reason saying so, its
 * external id the template's wamid (so its receipts show). Reply suggestions
 * are skipped: WhatsApp has no drafts.
 */
import { knownAttachments, PermanentDeliveryError, type ConnectorContext, type DeliverResult, type MessageCreatedEvent, type Thread, type WebhookEvent } from '../../src/connector/api.ts';
import { webhookEventKey } from '../../src/platform/schemas/unified-messaging.ts';
import type { CloudApi } from './cloud-api.ts';
import { WhatsAppWindowClosedError } from './graph-errors.ts';
import { inboundKey } from './inbound-message.ts';
import { uploadReplyFiles, type FileStep, type ReplyFileLimits } from './reply-files.ts';
import { replyMessages } from './reply-parts.ts';

/** The gateway has no customer for the event's thread (a thread it never saw). */
export class WhatsAppNoCustomerError extends PermanentDeliveryError {
  override readonly code: string = 'TG_WHATSAPP_NO_CUSTOMER';
}

/** What a reply has done so far, in the connector's state. */
interface Progress {
  files: FileStep[];
  /** The wamid of each message sent, by its place in the reply. */
  sent: string[];
  /** How it ended without its messages (the window closed): answered again as it was. */
  outcome?: DeliverResult;
}

export const PROGRESS_PREFIX = 'reply:';
/** The progress's key: the event's time and its dedup key, so keys sort by time (for pruning). */
export const progressKey = (event: MessageCreatedEvent) => `${PROGRESS_PREFIX}${event.message.created_at} ${webhookEventKey(event)}`;
/** The template last sent to a customer outside the window: `{ at, wamid }`. */
export const templateKey = (waId: string) => `template:${waId}`;

export interface ReplyOptions {
  template: { name: string; language: string } | undefined;
  limits: ReplyFileLimits;
}

export class ReplySender {
  readonly #ctx: ConnectorContext;
  readonly #api: CloudApi;
  readonly #options: ReplyOptions;

  constructor(ctx: ConnectorContext, api: CloudApi, options: ReplyOptions) {
    this.#ctx = ctx;
    this.#api = api;
    this.#options = options;
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, signal: AbortSignal): Promise<DeliverResult> {
    if (event.event_type !== 'message_created') return { skipped: 'WhatsApp has no drafts: reply suggestions are not sent to the customer' };
    if (thread === undefined) throw new WhatsAppNoCustomerError(`the gateway has no WhatsApp customer for thread ${event.thread_id}`);
    const state = this.#ctx.state;
    const key = progressKey(event);
    const progress: Progress = (await state.get<Progress>(key)) ?? { files: [], sent: [] };
    if (progress.outcome !== undefined) return progress.outcome;
    const saved = () => state.set(key, progress);

    await uploadReplyFiles(knownAttachments(event.message.attachments), progress.files, { ctx: this.#ctx, api: this.#api, limits: this.#options.limits, saved, signal });
    const notSent = progress.files.flatMap((s) => ('notSent' in s ? [s.notSent] : []));
    const text = [event.message.message.trim(), notSent.join('\n')].filter((t) => t !== '').join('\n\n');
    const messages = replyMessages(text, progress.files.flatMap((s) => ('upload' in s ? [s.upload] : [])));
    if (messages.length === 0) return { skipped: 'the agent’s message has neither text nor files' };
    for (const [index, message] of messages.entries()) {
      if (progress.sent[index] !== undefined) continue;
      try {
        progress.sent[index] = await this.#api.send(thread.key, message, signal);
      } catch (err) {
        if (!(err instanceof WhatsAppWindowClosedError) || this.#options.template === undefined) throw err;
        progress.outcome = await this.#sendTemplate(thread.key, progress.sent.length, messages.length, signal);
        await saved();
        return progress.outcome;
      }
      await saved();
    }
    return { externalId: progress.sent[0]! };
  }

  /** The configured template in place of the reply, unless one sent since the customer last wrote is unanswered. */
  async #sendTemplate(waId: string, sentParts: number, parts: number, signal: AbortSignal): Promise<DeliverResult> {
    const template = this.#options.template!;
    const state = this.#ctx.state;
    const closed = `outside WhatsApp's 24-hour customer service window (131047 Re-engagement message): the reply was not sent${sentParts > 0 ? ` after ${sentParts} of its ${parts} messages` : ''}`;
    const earlier = await state.get<{ at: number; wamid: string }>(templateKey(waId));
    const lastWrote = (await state.get<number>(inboundKey(waId))) ?? 0;
    if (earlier !== undefined && earlier.at > lastWrote) {
      return { skipped: `${closed}; the template "${template.name}" sent at ${new Date(earlier.at).toISOString()} is still unanswered, so it was not sent again` };
    }
    const wamid = await this.#api.send(waId, { type: 'template', template: { name: template.name, language: { code: template.language } } }, signal);
    await state.set(templateKey(waId), { at: Date.now(), wamid });
    this.#ctx.logger.info({ template: template.name, external_id: wamid }, 'outside the 24-hour window: the template was sent instead of the reply');
    return { skipped: `${closed}; the template "${template.name}" (${template.language}) was sent instead`, externalId: wamid };
  }
}

/** Deletes the progress of replies whose event is older than `before` (ms), a page at a time, oldest first. */
export async function pruneReplyProgress(ctx: ConnectorContext, before: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys = await ctx.state.keys(PROGRESS_PREFIX, 100);
    const old = keys.filter((k) => {
      const at = Date.parse(k.slice(PROGRESS_PREFIX.length).split(' ')[0] ?? '');
      return Number.isFinite(at) && at < before;
    });
    for (const key of old) await ctx.state.delete(key);
    deleted += old.length;
    if (old.length < keys.length || keys.length < 100) return deleted;
  }
}
