/**
 * The counterpart's Slack workspace, in memory: its team, users (people and
 * the app's bot user), channels with their members, messages (a thread's
 * replies counted on its root, as Slack's `reply_count` and `latest_reply`),
 * files, upload tickets, and the tokens that may act. Message ids (`ts`) are
 * the workspace clock's Unix seconds with six digits, strictly increasing.
 * The JSON renderings are Slack's shapes (https://api.slack.com/types/user,
 * /types/file, /events/message), with only the fields the Web API and the
 * Events API document for them.
 */
import { randomBytes } from 'node:crypto';

export interface WsUser {
  id: string;
  teamId: string;
  name: string;
  realName: string;
  displayName: string;
  email?: string;
  isBot: boolean;
  botId?: string;
  appId?: string;
}

export interface WsChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  archived: boolean;
  /** Shared with another organisation (Slack Connect): its files are named by id in events. */
  connect: boolean;
  members: Set<string>;
}

export interface WsMessage {
  channel: string;
  ts: string;
  user?: string;
  botId?: string;
  appId?: string;
  username?: string;
  text: string;
  threadTs?: string;
  subtype?: string;
  files: string[];
  metadata?: { event_type: string; event_payload?: Record<string, unknown> };
  replyCount: number;
  latestReply?: string;
  replyUsers: string[];
  deleted: boolean;
  editedTs?: string;
}

export interface WsFile {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  content: Buffer;
  user: string;
  created: number;
  /** Shared in these channels (visible to their members); none: private to its uploader. */
  channels: Set<string>;
}

export interface UploadTicket {
  fileId: string;
  filename: string;
  length: number;
  user: string;
  bytes?: Buffer;
  contentType?: string;
  completed: boolean;
}

export class SlackWorkspace {
  readonly teamId = 'T0ACME0001';
  readonly teamName = 'Acme Support';
  readonly url = 'https://acme-support.slack.com/';
  readonly users = new Map<string, WsUser>();
  readonly channels = new Map<string, WsChannel>();
  /** Per channel, by ts. */
  readonly messages = new Map<string, Map<string, WsMessage>>();
  readonly files = new Map<string, WsFile>();
  readonly uploads = new Map<string, UploadTicket>();
  /** token → user id; revoked tokens answer token_revoked. */
  readonly tokens = new Map<string, string>();
  readonly revoked = new Set<string>();
  #lastTs = 0;
  #seq = 0;

  id(prefix: string): string {
    this.#seq += 1;
    return `${prefix}${randomBytes(4).toString('hex').toUpperCase()}${String(this.#seq).padStart(3, '0')}`;
  }

  /** A new ts: now, in microseconds, never equal to or before the last one. */
  nextTs(): string {
    const micros = Math.max(Date.now() * 1000, this.#lastTs + 1);
    this.#lastTs = micros;
    return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
  }

  addUser(user: Omit<WsUser, 'id' | 'teamId'> & { id?: string; teamId?: string }): WsUser {
    const made: WsUser = { ...user, id: user.id ?? this.id(user.isBot ? 'U0B' : 'U0'), teamId: user.teamId ?? this.teamId };
    this.users.set(made.id, made);
    return made;
  }

  addChannel(name: string, options: { isPrivate?: boolean; connect?: boolean; members?: string[] } = {}): WsChannel {
    const channel: WsChannel = { id: this.id(options.isPrivate ? 'G0' : 'C0'), name, isPrivate: options.isPrivate ?? false, archived: false, connect: options.connect ?? false, members: new Set(options.members ?? []) };
    this.channels.set(channel.id, channel);
    this.messages.set(channel.id, new Map());
    return channel;
  }

  /** Stores a message (a reply counted on its root); answers it. */
  addMessage(message: Omit<WsMessage, 'ts' | 'replyCount' | 'replyUsers' | 'deleted' | 'files'> & { files?: string[] }): WsMessage {
    const stored: WsMessage = { ...message, ts: this.nextTs(), files: message.files ?? [], replyCount: 0, replyUsers: [], deleted: false };
    this.messages.get(message.channel)!.set(stored.ts, stored);
    for (const id of stored.files) this.files.get(id)?.channels.add(message.channel);
    if (stored.threadTs !== undefined && stored.threadTs !== stored.ts) {
      const root = this.message(message.channel, stored.threadTs);
      if (root !== undefined) {
        root.replyCount += 1;
        root.latestReply = stored.ts;
        const who = stored.user ?? stored.botId;
        if (who && !root.replyUsers.includes(who)) root.replyUsers.push(who);
      }
    }
    return stored;
  }

  message(channel: string, ts: string): WsMessage | undefined {
    return this.messages.get(channel)?.get(ts);
  }

  /** A channel's messages, oldest first (deleted ones left out). */
  list(channel: string): WsMessage[] {
    return [...(this.messages.get(channel)?.values() ?? [])].filter((m) => !m.deleted).sort((a, b) => Number(a.ts) - Number(b.ts) || a.ts.localeCompare(b.ts));
  }

  addFile(file: { name: string; mimetype: string; content: Buffer; user: string; title?: string; id?: string }): WsFile {
    const stored: WsFile = { id: file.id ?? this.id('F0'), name: file.name, title: file.title ?? file.name, mimetype: file.mimetype, content: file.content, user: file.user, created: Math.floor(Date.now() / 1000), channels: new Set() };
    this.files.set(stored.id, stored);
    return stored;
  }

  /** Whether `userId` may see `file`: its uploader, or a member of a channel it is shared in. */
  canSee(userId: string, file: WsFile): boolean {
    return file.user === userId || [...file.channels].some((c) => this.channels.get(c)?.members.has(userId));
  }

  newToken(userId: string, prefix: string): string {
    const token = `${prefix}-${randomBytes(6).toString('hex')}-${randomBytes(12).toString('hex')}`;
    this.tokens.set(token, userId);
    return token;
  }
}
