/**
 * `deliver`: an agent's reply (message_created) into the customer's Slack
 * thread, as the app —
 *
 *   1. the agent's files uploaded (reply-files.ts; not yet shared)
 *   2. the text, `*Agent*: ` first (agent_names), escaped for Slack (mrkdwn.ts), with a line per file not sent,
 *      cut into parts of at most 4,000 characters (reply-text.ts), each posted in order with chat.postMessage
 *      {channel, thread_ts: the thread's root, text, metadata: {event_type: "threadgate_reply",
 *       event_payload: {ref, part, parts}}}
 *   3. the uploaded files shared in the thread (files.completeUploadExternal)
 *
 * `externalId` is the ts of the first part (of the files' id, for a reply of
 * files only). Exactly once, though the job may run again (a crash, a
 * timeout, a 429 halfway): each step is recorded in the state when Slack
 * confirmed it (reply-progress.ts), and a retry first reads the thread
 * (conversations.replies with include_all_metadata) for parts carrying this
 * reply's `ref` and for messages holding its uploaded files, so a step whose
 * answer was lost is not done twice. Reply suggestions are skipped: a Slack
 * thread has no drafts. Errors are Slack's (slack-errors.ts): a refused
 * channel or token dead-letters with Slack's word, a 429 waits its
 * Retry-After, anything else is retried.
 */
import { knownAttachments, type ConnectorState, type DeliverContext, type DeliverResult, type MessageCreatedEvent, type Thread, type WebhookEvent } from '../../src/connector/api.ts';
import type { FileLimits } from './config.ts';
import { shareFiles, uploadFile, type FileContext } from './reply-files.ts';
import { replyText, splitText } from './reply-text.ts';
import { loadProgress, progressKey, replyRef, type ReplyProgress } from './reply-progress.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackRefusedError, SlackThreadUnknownError, SlackUnavailableError } from './slack-errors.ts';
import { threadOfKey, tsOfSeconds } from './slack-ids.ts';
import { MessagePage, PostMessage } from './slack-schemas.ts';
import type { Self } from './message-verdict.ts';

export const METADATA_TYPE = 'threadgate_reply';
/** The thread is read back from this long before the platform's time of the reply (clocks differ). */
const LOOKBACK_SECONDS = 600;

export interface ReplyWriterDeps {
  api: SlackApi;
  state: ConnectorState;
  fetcher: FileContext['fetcher'];
  limits: FileLimits;
  agentNames: boolean;
  /** Who the app is (auth.test), to find its own messages in the thread. */
  self: () => Promise<Self>;
}

export class ReplyWriter {
  readonly #d: ReplyWriterDeps;
  suggestionsSkipped = 0;

  constructor(deps: ReplyWriterDeps) {
    this.#d = deps;
  }

  async deliver(event: WebhookEvent, thread: Thread | undefined, context: DeliverContext): Promise<DeliverResult> {
    if (event.event_type !== 'message_created') {
      this.suggestionsSkipped += 1;
      return { skipped: 'reply suggestions are not posted to Slack: a Slack thread has no drafts' };
    }
    const where = thread === undefined ? undefined : threadOfKey(thread.key);
    if (where === undefined) {
      throw new SlackThreadUnknownError(thread ? `the thread ${thread.key} is not a Slack thread (<channel>/<ts>)` : `the gateway has no record of the thread ${event.thread_id}`);
    }
    const { signal } = context;
    const key = progressKey(event);
    const progress = await loadProgress(this.#d.state, key, context.attempt);
    if (progress.done) return { externalId: progress.externalId! };
    const ref = replyRef(event);
    const save = () => this.#d.state.set(key, progress);
    if (context.attempt > 1) await this.#recover(progress, where, ref, event, signal);

    const attachments = knownAttachments(event.message.attachments);
    const files = progress.files ?? [];
    let budget = this.#d.limits.max_message_bytes - files.reduce((n, f) => n + (f && 'bytes' in f ? (f.bytes ?? 0) : 0), 0);
    for (const [index, attachment] of attachments.entries()) {
      if (files[index] != null) continue;
      const step = await uploadFile(attachment, budget, { api: this.#d.api, fetcher: this.#d.fetcher, limits: this.#d.limits, signal });
      budget -= 'bytes' in step ? (step.bytes ?? 0) : 0;
      files[index] = step;
      progress.files = files;
      await save();
    }
    const notSent = files.flatMap((f) => (f && 'notSent' in f ? [f.notSent] : []));
    const parts = splitText(replyText(event.message.sender_public_name ?? event.message.sender_name, event.message.message, notSent, this.#d.agentNames));
    if (parts.length === 0 && !files.some((f) => f && 'id' in f)) return { skipped: 'an empty reply: neither text nor a file to send' };
    for (const [index, part] of parts.entries()) {
      if (progress.parts[index]) continue;
      const metadata = { event_type: METADATA_TYPE, event_payload: { ref, part: index, parts: parts.length } };
      const posted = await this.#d.api.call('chat.postMessage', { channel: where.channel, thread_ts: where.rootTs, text: part, metadata }, PostMessage, { signal, json: true });
      progress.parts[index] = posted.ts;
      await save();
    }
    const uploaded = files.flatMap((f) => (f && 'id' in f ? [f] : []));
    if (uploaded.length > 0 && !progress.shared) {
      try {
        await shareFiles(this.#d.api, uploaded, where.channel, where.rootTs, signal);
      } catch (err) {
        if (!(err instanceof SlackRefusedError) || err.slackError !== 'file_not_found') throw err;
        // The upload went stale before it was shared: uploaded again on the next try.
        progress.files = files.map((f) => (f && 'id' in f ? null : f));
        await save();
        throw new SlackUnavailableError(`Slack no longer knew the uploaded files of this reply (file_not_found): they are uploaded again`);
      }
      progress.shared = true;
      await save();
    }
    progress.done = true;
    progress.externalId = progress.parts[0] ?? uploaded[0]?.id ?? '';
    await save();
    return { externalId: progress.externalId };
  }

  /** A retry: the parts and the shared files Slack holds though their answers were lost, found by the reply's ref. */
  async #recover(progress: ReplyProgress, where: { channel: string; rootTs: string }, ref: string, event: MessageCreatedEvent, signal: AbortSignal): Promise<void> {
    const self = await this.#d.self();
    const ids = new Set((progress.files ?? []).flatMap((f) => (f && 'id' in f ? [f.id] : [])));
    const oldest = tsOfSeconds(Date.parse(event.message.created_at) / 1000 - LOOKBACK_SECONDS);
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const args = { channel: where.channel, ts: where.rootTs, oldest, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      const answer = await this.#d.api.call('conversations.replies', args, MessagePage, { signal });
      for (const message of answer.messages) {
        const own = (self.userId !== undefined && message.user === self.userId) || (self.botId !== undefined && message.bot_id === self.botId);
        if (!own) continue;
        const payload = message.metadata?.event_type === METADATA_TYPE ? message.metadata.event_payload : undefined;
        if (payload?.ref === ref && typeof payload.part === 'number' && !progress.parts[payload.part]) progress.parts[payload.part] = message.ts;
        if (message.files?.some((f) => ids.has(f.id))) progress.shared = true;
      }
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
  }
}
