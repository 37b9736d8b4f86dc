/**
 * What the counterpart's Telegram holds for its one bot: the bot itself, the
 * users who write to it, its chats (private ones, whose id is the user's, as
 * in Telegram; groups and supergroups with negative ids), the files of
 * messages (by `file_id`, each with a `file_unique_id`), and what the bot
 * sent. Message ids count up per chat, shared by both sides, as Telegram's
 * do. A private chat exists once its user has written to the bot (which
 * Telegram requires before a bot may write to anyone); a user who blocks
 * the bot makes every send to the chat a 403.
 *
 * The JSON renderings follow the Bot API's types
 * (https://core.telegram.org/bots/api#user, #chat, #message, #photosize,
 * #document, #file).
 */
import { randomBytes } from 'node:crypto';

export interface TgUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

export interface TgChat {
  id: number;
  type: 'private' | 'group' | 'supergroup';
  title?: string;
  /** The private chat's user. */
  user?: TgUser;
  /** The user blocked the bot: every send is refused (403). */
  blocked: boolean;
  /** A group upgraded to a supergroup: sends answer 400 with migrate_to_chat_id. */
  migratedTo?: number;
  lastMessageId: number;
}

export interface TgFile {
  file_id: string;
  file_unique_id: string;
  content: Buffer;
  /** Where getFile puts it (`documents/file_3.pdf`); set on the first getFile. */
  path?: string;
  kind: 'documents' | 'photos';
  extension: string;
}

/** What the bot sent, as the test reads it. */
export interface BotMessage {
  message_id: number;
  chat_id: number;
  kind: 'text' | 'document' | 'photo';
  text?: string;
  caption?: string;
  file?: { filename: string; contentType: string; content: Buffer };
  /** The machine's time it was accepted (ms). */
  at: number;
}

export class BotState {
  readonly bot: TgUser;
  readonly token: string;
  readonly users = new Map<number, TgUser>();
  readonly chats = new Map<number, TgChat>();
  readonly files = new Map<string, TgFile>();
  /** Issued download paths → file_id. */
  readonly paths = new Map<string, string>();
  readonly sent: BotMessage[] = [];
  #nextUser = 700_000_001;
  #nextGroup = 4_000_001;
  #nextFile = 1;

  constructor(username: string) {
    const id = 6_000_000_000 + Math.floor(Math.random() * 1_000_000);
    this.bot = { id, is_bot: true, first_name: 'Threadgate Test', username };
    // What BotFather hands out: the bot id, a colon, 35 characters.
    this.token = `${id}:${randomBytes(27).toString('base64url').slice(0, 35)}`;
  }

  /** A user who has opened a private chat with the bot. */
  addUser(fields: Partial<Omit<TgUser, 'id' | 'is_bot'>> = {}): TgUser {
    const user: TgUser = { id: this.#nextUser++, is_bot: false, first_name: fields.first_name ?? 'Ann', ...fields };
    this.users.set(user.id, user);
    this.chats.set(user.id, { id: user.id, type: 'private', user, blocked: false, lastMessageId: 0 });
    return user;
  }

  addGroup(title: string, type: 'group' | 'supergroup' = 'group'): TgChat {
    const id = type === 'supergroup' ? -(1_000_000_000_000 + this.#nextGroup++) : -this.#nextGroup++;
    const chat: TgChat = { id, type, title, blocked: false, lastMessageId: 0 };
    this.chats.set(id, chat);
    return chat;
  }

  chat(id: number): TgChat {
    const chat = this.chats.get(id);
    if (!chat) throw new Error(`the counterpart has no chat ${id}`);
    return chat;
  }

  nextMessageId(chat: TgChat): number {
    chat.lastMessageId += 1;
    return chat.lastMessageId;
  }

  /** Keeps a file; answers its ids. */
  addFile(content: Buffer, kind: TgFile['kind'], extension: string): TgFile {
    const n = this.#nextFile++;
    const file: TgFile = { file_id: `BQACAgI${n}${randomBytes(12).toString('base64url')}`, file_unique_id: `AgAD${n}`, content, kind, extension };
    this.files.set(file.file_id, file);
    return file;
  }

  /** The path getFile answers for `file` (the same on every call, as Telegram keeps it for an hour or more). */
  pathOf(file: TgFile): string {
    if (file.path === undefined) {
      file.path = `${file.kind}/file_${this.paths.size + 1}${file.extension}`;
      this.paths.set(file.path, file.file_id);
    }
    return file.path;
  }

  userJson(user: TgUser): Record<string, unknown> {
    return { ...user };
  }

  chatJson(chat: TgChat): Record<string, unknown> {
    if (chat.type === 'private' && chat.user) {
      const u = chat.user;
      return { id: chat.id, type: 'private', first_name: u.first_name, ...(u.last_name ? { last_name: u.last_name } : {}), ...(u.username ? { username: u.username } : {}) };
    }
    return { id: chat.id, type: chat.type, title: chat.title, ...(chat.type === 'group' ? { all_members_are_administrators: false } : {}) };
  }

  /** A Message object: the envelope and `content` (text, caption, photo, document…). */
  messageJson(chat: TgChat, from: TgUser, messageId: number, content: Record<string, unknown>, date = Math.floor(Date.now() / 1000)): Record<string, unknown> {
    return { message_id: messageId, from: this.userJson(from), chat: this.chatJson(chat), date, ...content };
  }

  documentJson(file: TgFile, name: string, mimeType: string): Record<string, unknown> {
    return { file_name: name, mime_type: mimeType, file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: file.content.length };
  }

  /** A photo as Telegram sends it: three sizes, smallest first, each its own file; the largest holds `content`. */
  photoJson(content: Buffer): Record<string, unknown>[] {
    const sizes = [
      { width: 90, height: 60, bytes: content.subarray(0, Math.max(1, Math.floor(content.length / 16))) },
      { width: 320, height: 213, bytes: content.subarray(0, Math.max(1, Math.floor(content.length / 4))) },
      { width: 1280, height: 853, bytes: content },
    ];
    return sizes.map((s) => {
      const file = this.addFile(Buffer.from(s.bytes), 'photos', '.jpg');
      return { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: s.bytes.length, width: s.width, height: s.height };
    });
  }
}
