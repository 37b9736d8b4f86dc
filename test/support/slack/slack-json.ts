/**
 * The counterpart's records in Slack's JSON shapes, as its Web API answers
 * them and its events carry them:
 *
 * - a user (https://api.slack.com/types/user): id, team_id, name, real_name, is_bot, profile{…}
 * - a file (https://api.slack.com/types/file): id, name, title, mimetype, filetype, size, mode "hosted",
 *   url_private and url_private_download on the counterpart's own address (/files-pri/…), which want
 *   the bot token; in a Slack Connect channel's events only {id, file_access: "check_file_info"}
 * - a message (https://api.slack.com/events/message): type, user or bot_id/app_id, text, ts, team,
 *   thread_ts, reply_count/latest_reply/reply_users on a thread's root, files, subtype, and
 *   `metadata` only when asked for (include_all_metadata)
 */
import type { SlackWorkspace, WsFile, WsMessage, WsUser } from './slack-workspace.ts';

export class SlackJson {
  readonly #ws: SlackWorkspace;
  readonly #root: string;

  constructor(ws: SlackWorkspace, root: string) {
    this.#ws = ws;
    this.#root = root;
  }

  user(u: WsUser): Record<string, unknown> {
    return {
      id: u.id,
      team_id: u.teamId,
      name: u.name,
      deleted: false,
      real_name: u.realName,
      is_bot: u.isBot,
      is_app_user: false,
      profile: { real_name: u.realName, display_name: u.displayName, ...(u.email ? { email: u.email } : {}), ...(u.botId ? { bot_id: u.botId } : {}), team: u.teamId },
    };
  }

  file(f: WsFile): Record<string, unknown> {
    const path = `${this.#root}/files-pri/${this.#ws.teamId}-${f.id}`;
    const name = encodeURIComponent(f.name);
    return {
      id: f.id,
      created: f.created,
      timestamp: f.created,
      name: f.name,
      title: f.title,
      mimetype: f.mimetype,
      filetype: f.name.includes('.') ? f.name.split('.').pop() : 'binary',
      user: f.user,
      user_team: this.#ws.users.get(f.user)?.teamId ?? this.#ws.teamId,
      mode: 'hosted',
      editable: false,
      is_external: false,
      external_type: '',
      size: f.content.length,
      url_private: `${path}/${name}`,
      url_private_download: `${path}/download/${name}`,
      permalink: `${this.#ws.url}files/${f.user}/${f.id}/${name}`,
      is_public: !this.#ws.channels.get([...f.channels][0] ?? '')?.isPrivate,
    };
  }

  /** A message; `withMetadata` as include_all_metadata asks; `fileAccess` names files by id only (Slack Connect events). */
  message(m: WsMessage, options: { withMetadata?: boolean; fileAccess?: boolean; channel?: boolean } = {}): Record<string, unknown> {
    const author = m.user === undefined ? undefined : this.#ws.users.get(m.user);
    const json: Record<string, unknown> = { type: 'message', ts: m.ts, text: m.text };
    if (options.channel) json.channel = m.channel;
    if (m.subtype) json.subtype = m.subtype;
    if (m.user) json.user = m.user;
    if (m.botId) json.bot_id = m.botId;
    if (m.appId) json.app_id = m.appId;
    if (m.username) json.username = m.username;
    if (author) {
      json.team = author.teamId;
      if (author.teamId !== this.#ws.teamId) json.user_team = author.teamId;
    }
    if (m.threadTs !== undefined) json.thread_ts = m.threadTs;
    if (m.replyCount > 0) {
      json.reply_count = m.replyCount;
      json.latest_reply = m.latestReply;
      json.reply_users = m.replyUsers;
      json.reply_users_count = m.replyUsers.length;
    }
    if (m.editedTs) json.edited = { user: m.user, ts: m.editedTs };
    if (m.files.length > 0) {
      json.files = m.files.map((id) => {
        const file = this.#ws.files.get(id)!;
        return options.fileAccess ? { id, file_access: 'check_file_info', created: file.created, timestamp: file.created, user: file.user } : this.file(file);
      });
      json.upload = false;
    }
    if (options.withMetadata && m.metadata) json.metadata = m.metadata;
    return json;
  }
}
