/**
 * What a Web API method of the counterpart is given and answers, and the
 * methods about who and what (each as its reference page at
 * https://api.slack.com/methods/<method> documents it):
 *
 *   auth.test          {url, team, user, team_id, user_id, bot_id}
 *   users.info         {user}; user_not_found
 *   chat.postMessage   {channel, ts, message}; the refusals, in this order: channel_not_found (no such
 *                      channel, or a private one the caller is not in), is_archived, not_in_channel,
 *                      no_text (no text, blocks or attachments), msg_too_long (text over 40,000
 *                      characters: the reference says longer text is truncated and lists msg_too_long;
 *                      the counterpart refuses it so a connector that would lose text is seen). A
 *                      thread_ts of a reply is taken as its thread's root, as Slack asks callers not to
 *                      rely on; `metadata` is kept (JSON object, or its text in a form).
 *   files.info         {file}; file_not_found for a file the caller may not see
 *
 * Every message the app posts is also sent to its Request URL as an event,
 * as Slack does (the app's own messages arrive with its bot_id and app_id).
 */
import type { SlackJson } from './slack-json.ts';
import type { SlackWorkspace, WsMessage, WsUser } from './slack-workspace.ts';

/** Slack's `{"ok": false, "error": word}` (HTTP 200), with any further fields. */
export class SlackApiError extends Error {
  readonly word: string;
  readonly extra: Record<string, unknown>;

  constructor(word: string, extra: Record<string, unknown> = {}) {
    super(word);
    this.word = word;
    this.extra = extra;
  }
}

export interface ApiCall {
  method: string;
  args: Record<string, unknown>;
  caller: WsUser;
}

export interface ApiContext {
  ws: SlackWorkspace;
  json: SlackJson;
  root: string;
  /** Largest upload taken (Slack: 1 GB; smaller in tests). */
  maxUploadBytes: number;
  /** Sends a stored message to the app's Request URL as a `message` event. */
  emit(message: WsMessage): void;
}

export type Method = (call: ApiCall, c: ApiContext) => Record<string, unknown>;

export const MAX_TEXT_CHARS = 40_000;

export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined);

/** The channel `id` names, if the caller may see it (private channels only to their members). */
export function visibleChannel(c: ApiContext, caller: WsUser, id: unknown, missing = 'channel_not_found') {
  const channel = typeof id === 'string' ? c.ws.channels.get(id) : undefined;
  if (channel === undefined || (channel.isPrivate && !channel.members.has(caller.id))) throw new SlackApiError(missing);
  return channel;
}

/** A JSON argument given as an object (a JSON body) or as its text (a form). */
export function jsonArg(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new SlackApiError('invalid_arguments', { response_metadata: { messages: ['[ERROR] the value is not valid JSON'] } });
  }
}

/** The root a thread_ts names: a reply's thread_ts is taken as its thread's. */
export function rootOf(c: ApiContext, channel: string, threadTs: string | undefined): string | undefined {
  if (threadTs === undefined) return undefined;
  const named = c.ws.message(channel, threadTs);
  return named?.threadTs ?? threadTs;
}

export const whoMethods: Record<string, Method> = {
  'auth.test': ({ caller }, c) => ({
    url: c.ws.url,
    team: c.ws.teamName,
    user: caller.name,
    team_id: c.ws.teamId,
    user_id: caller.id,
    ...(caller.botId ? { bot_id: caller.botId } : {}),
    is_enterprise_install: false,
  }),

  'users.info': ({ args }, c) => {
    const user = typeof args.user === 'string' ? c.ws.users.get(args.user) : undefined;
    if (user === undefined) throw new SlackApiError('user_not_found');
    return { user: c.json.user(user) };
  },

  'chat.postMessage': ({ args, caller }, c) => {
    const channel = visibleChannel(c, caller, args.channel);
    if (channel.archived) throw new SlackApiError('is_archived');
    if (!channel.members.has(caller.id)) throw new SlackApiError('not_in_channel');
    const text = typeof args.text === 'string' ? args.text : '';
    if (text.trim() === '' && args.blocks === undefined && args.attachments === undefined) throw new SlackApiError('no_text');
    if (text.length > MAX_TEXT_CHARS) throw new SlackApiError('msg_too_long');
    const metadata = args.metadata === undefined ? undefined : (jsonArg(args.metadata) as WsMessage['metadata']);
    const threadTs = rootOf(c, channel.id, str(args.thread_ts));
    const message = c.ws.addMessage({
      channel: channel.id,
      user: caller.id,
      ...(caller.botId ? { botId: caller.botId } : {}),
      ...(caller.appId ? { appId: caller.appId } : {}),
      text,
      ...(threadTs ? { threadTs } : {}),
      ...(metadata ? { metadata } : {}),
    });
    c.emit(message);
    return { channel: channel.id, ts: message.ts, message: c.json.message(message) };
  },

  'files.info': ({ args, caller }, c) => {
    const file = typeof args.file === 'string' ? c.ws.files.get(args.file) : undefined;
    if (file === undefined || !c.ws.canSee(caller.id, file)) throw new SlackApiError('file_not_found');
    return { file: c.json.file(file) };
  },
};
