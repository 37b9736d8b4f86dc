/**
 * The shapes of what Slack sends the connector and answers it, only the
 * fields it reads (anything else is ignored): the Events API's envelopes and
 * `message` events, and the Web API answers of the methods it calls.
 *
 * - https://api.slack.com/apis/events-api (envelopes: url_verification, event_callback, app_rate_limited)
 * - https://api.slack.com/events/message (and its subtypes), https://api.slack.com/types/file
 * - https://api.slack.com/methods/auth.test, users.info, chat.postMessage, conversations.history,
 *   conversations.replies, files.info, files.getUploadURLExternal, files.completeUploadExternal
 */
import { z } from 'zod';

const text = z.string().nullish();

/** A file object (https://api.slack.com/types/file); in Slack Connect channels often just `id` and `file_access`. */
export const SlackFile = z.looseObject({
  id: z.string(),
  name: text,
  title: text,
  mimetype: text,
  size: z.number().int().nonnegative().nullish(),
  mode: text,
  url_private: text,
  url_private_download: text,
  /** `check_file_info`: the event left the file out; files.info has it. */
  file_access: text,
});
export type SlackFile = z.output<typeof SlackFile>;

const metadata = z.looseObject({ event_type: z.string(), event_payload: z.record(z.string(), z.unknown()).nullish() }).nullish();

/** A message as events, conversations.history and conversations.replies give it. */
export const SlackMessage = z.looseObject({
  type: z.string().optional(),
  subtype: z.string().optional(),
  channel: z.string().optional(),
  user: z.string().optional(),
  bot_id: text,
  app_id: text,
  username: text,
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  reply_count: z.number().int().nullish(),
  latest_reply: text,
  user_team: text,
  team: text,
  files: z.array(SlackFile).optional(),
  metadata,
  hidden: z.boolean().optional(),
  /** message_changed: the message as it is now, and as it was. */
  message: z.looseObject({ ts: z.string(), user: z.string().optional(), text: z.string().optional(), bot_id: text, files: z.array(SlackFile).optional() }).optional(),
  previous_message: z.looseObject({ ts: z.string().optional(), text: z.string().optional(), files: z.array(SlackFile).optional() }).optional(),
  /** message_deleted: the ts of the message deleted. */
  deleted_ts: z.string().optional(),
});
export type SlackMessage = z.output<typeof SlackMessage>;

/** What Slack POSTs to the Request URL. */
export const Envelope = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('url_verification'), challenge: z.string() }),
  z.looseObject({
    type: z.literal('event_callback'),
    team_id: z.string().optional(),
    api_app_id: z.string().optional(),
    event_id: z.string().optional(),
    event: z.looseObject({ type: z.string() }),
  }),
  z.looseObject({ type: z.literal('app_rate_limited'), minute_rate_limited: z.number().optional() }),
]);
export type Envelope = z.output<typeof Envelope>;

export const AuthTest = z.looseObject({
  url: z.string().optional(),
  team: z.string().optional(),
  team_id: z.string().optional(),
  user: z.string().optional(),
  user_id: z.string(),
  bot_id: z.string().optional(),
});
export type AuthTest = z.output<typeof AuthTest>;

export const UserInfo = z.looseObject({
  user: z.looseObject({
    id: z.string(),
    name: text,
    real_name: text,
    team_id: text,
    is_bot: z.boolean().optional(),
    profile: z.looseObject({ real_name: text, display_name: text, email: text }).optional(),
  }),
});

export const PostMessage = z.looseObject({ channel: z.string(), ts: z.string() });

/** conversations.history and conversations.replies: a page of messages and where the next starts. */
export const MessagePage = z.looseObject({
  messages: z.array(SlackMessage),
  has_more: z.boolean().optional(),
  response_metadata: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});
export type MessagePage = z.output<typeof MessagePage>;

export const FileInfo = z.looseObject({ file: SlackFile });
export const UploadUrl = z.looseObject({ upload_url: z.string(), file_id: z.string() });
export const CompleteUpload = z.looseObject({ files: z.array(z.looseObject({ id: z.string() })) });
