/**
 * What a Slack message (a `message` event, or one read back from history)
 * becomes, decided from the message alone:
 *
 *   in a channel not configured                          → ignored
 *   the gateway's own (its bot user, bot id or app)      → ignored (an agent reply it posted)
 *   message_changed of the text or files                 → recorded as skipped, TG_SLACK_MESSAGE_EDITED
 *   message_changed of nothing else (a link preview)     → ignored
 *   message_deleted                                      → recorded as skipped, TG_SLACK_MESSAGE_DELETED
 *   another app's or bot's (bot_id, bot_message)         → recorded as skipped, TG_SLACK_BOT_MESSAGE
 *   a person's message, file_share, thread_broadcast,    → posted: from its sender, in the thread of its root
 *     me_message, with text or files
 *   one with neither text nor files                      → recorded as skipped, TG_SLACK_MESSAGE_EMPTY
 *   any other subtype (joins, topics, pins, …)           → ignored: Slack's notices, not a customer's words
 *
 * The root of a thread is the channel's top-level message: `thread_ts` when
 * the message has one (a reply, or a reply also sent to the channel), else
 * its own `ts`.
 */
import type { SkipRecord } from '../../src/connector/api.ts';
import { messageIdOf } from './slack-ids.ts';
import type { SlackFile, SlackMessage } from './slack-schemas.ts';

/** A customer's message to post. */
export interface CustomerPost {
  channel: string;
  ts: string;
  rootTs: string;
  user: string;
  /** The team of a Slack Connect user from another organisation. */
  userTeam?: string;
  /** As Slack wrote it (mrkdwn). */
  text: string;
  files: SlackFile[];
}

export type Verdict = { kind: 'post'; post: CustomerPost } | { kind: 'skip'; record: SkipRecord } | { kind: 'ignore'; why: string };

/** Who the gateway is in Slack, as far as known (auth.test, and the envelope's app). */
export interface Self {
  userId?: string | undefined;
  botId?: string | undefined;
  appId?: string | undefined;
}

const POSTED_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'me_message']);

export function verdictOf(message: SlackMessage, channel: string, channels: ReadonlySet<string>, self: Self): Verdict {
  if (!channels.has(channel)) return { kind: 'ignore', why: `a message in ${channel}, not a configured channel` };
  const own = (m: { user?: string | undefined; bot_id?: string | null | undefined; app_id?: string | null | undefined }) =>
    (self.userId !== undefined && m.user === self.userId) || (self.botId !== undefined && m.bot_id === self.botId) || (self.appId !== undefined && m.app_id === self.appId);
  if (own(message)) return { kind: 'ignore', why: 'the gateway’s own message' };
  const subtype = message.subtype;
  if (subtype === 'message_changed') return edited(message, channel, own);
  if (subtype === 'message_deleted') {
    const ts = message.deleted_ts ?? message.previous_message?.ts ?? message.ts;
    return skip(`${messageIdOf(channel, ts)}#deleted`, 'TG_SLACK_MESSAGE_DELETED', 'deleted in Slack after it was sent (message_deleted): the platform keeps what was posted');
  }
  if (message.bot_id || subtype === 'bot_message') {
    const who = message.username || message.bot_id || 'a bot';
    return skip(messageIdOf(channel, message.ts), 'TG_SLACK_BOT_MESSAGE', `a message of another app or bot (${who}), not a customer’s`);
  }
  if (subtype !== undefined && !POSTED_SUBTYPES.has(subtype)) return { kind: 'ignore', why: `a ${subtype} notice` };
  if (!message.user) return { kind: 'ignore', why: 'a message without a user' };
  const text = message.text ?? '';
  const files = message.files ?? [];
  if (text.trim() === '' && files.length === 0) {
    return skip(messageIdOf(channel, message.ts), 'TG_SLACK_MESSAGE_EMPTY', 'neither text nor files (only blocks or attachments the gateway does not read)', message.user);
  }
  const post: CustomerPost = { channel, ts: message.ts, rootTs: message.thread_ts ?? message.ts, user: message.user, text, files };
  if (message.user_team) post.userTeam = message.user_team;
  return { kind: 'post', post };
}

function edited(message: SlackMessage, channel: string, own: (m: NonNullable<SlackMessage['message']>) => boolean): Verdict {
  const now = message.message;
  if (now === undefined) return { kind: 'ignore', why: 'a message_changed without the message' };
  if (own(now)) return { kind: 'ignore', why: 'a change of the gateway’s own message' };
  const before = message.previous_message;
  const filesOf = (list: readonly SlackFile[] | undefined) => (list ?? []).map((f) => f.id).join(',');
  if (before !== undefined && before.text === now.text && filesOf(before.files) === filesOf(now.files)) return { kind: 'ignore', why: 'a change of neither text nor files (a link preview)' };
  return skip(
    `${messageIdOf(channel, now.ts)}#edited@${message.ts}`,
    'TG_SLACK_MESSAGE_EDITED',
    'edited in Slack after it was sent (message_changed): the platform keeps the text as first posted',
    now.user,
  );
}

function skip(messageId: string, code: string, reason: string, senderId?: string): Verdict {
  return { kind: 'skip', record: { messageId, code, reason, ...(senderId ? { senderId } : {}) } };
}
