/**
 * The sandbox's whole world, in memory: organizations, rooms, users, tokens,
 * channel configurations, thread mappings, chats, messages, reply suggestions,
 * the files agents attached and the record of webhook attempts. Plus the
 * sandbox clock, which the control API can move forward so time-based fields
 * are testable.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type {
  ApiToken,
  AvatarRecord,
  ChannelConfigurationRecord,
  ChatRecord,
  MessageRecord,
  Organization,
  ReplySuggestionRecord,
  Room,
  SandboxFile,
  ThreadMapping,
  User,
  UserClientRecord,
  UserPreferencesValues,
  Visitor,
  WebhookAttempt,
} from './model.ts';

export const SETTINGS_SCOPE = 'settings';

export class SandboxState {
  readonly organizations = new Map<string, Organization>();
  readonly rooms = new Map<string, Room>();
  readonly users = new Map<string, User>();
  readonly tokens = new Map<string, ApiToken>();
  readonly configurations = new Map<string, ChannelConfigurationRecord>();
  readonly visitors = new Map<string, Visitor>();
  readonly chats = new Map<string, ChatRecord>();
  readonly suggestions = new Map<string, ReplySuggestionRecord>();
  /** Attachments of agents' messages, by file id. */
  readonly files = new Map<string, SandboxFile>();
  readonly webhookAttempts: WebhookAttempt[] = [];
  /** Spec 01 users interface: user clients (presence), preferences by user id, avatars. */
  readonly userClients = new Map<string, UserClientRecord>();
  readonly preferences = new Map<string, UserPreferencesValues>();
  readonly avatars = new Map<string, AvatarRecord>();
  private readonly mappingsByThread = new Map<string, ThreadMapping>();
  private readonly messagesByChat = new Map<string, MessageRecord[]>();
  private clockOffsetMs = 0;

  /** Epoch milliseconds of the sandbox clock. */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  advanceClock(ms: number): number {
    this.clockOffsetMs += ms;
    return this.now();
  }

  addOrganization(name: string, id: string = randomUUID()): Organization {
    const org = { id, name };
    this.organizations.set(id, org);
    return org;
  }

  addRoom(organizationId: string, name: string, id: string = randomUUID()): Room {
    const room = { id, name, organizationId };
    this.rooms.set(id, room);
    return room;
  }

  addUser(organizationId: string, name: string, publicName?: string): User {
    const user: User = {
      id: randomUUID(),
      organizationId,
      name,
      publicName: publicName ?? name.split(/\s+/)[0] ?? name,
      createdAt: this.now(),
    };
    this.users.set(user.id, user);
    return user;
  }

  issueToken(organizationId: string, userId: string, scopes: Iterable<string>, token?: string): ApiToken {
    const issued: ApiToken = {
      token: token ?? randomBytes(20).toString('hex'),
      organizationId,
      userId,
      scopes: new Set(scopes),
    };
    this.tokens.set(issued.token, issued);
    return issued;
  }

  /** The first user of an organization: the agent the control API writes as by default. */
  defaultAgent(organizationId: string): User | undefined {
    for (const user of this.users.values()) if (user.organizationId === organizationId) return user;
    return undefined;
  }

  findMapping(configId: string, threadId: string): ThreadMapping | undefined {
    return this.mappingsByThread.get(mappingKey(configId, threadId));
  }

  saveMapping(mapping: ThreadMapping): void {
    this.mappingsByThread.set(mappingKey(mapping.configId, mapping.threadId), mapping);
  }

  messagesOf(chatId: string): readonly MessageRecord[] {
    return this.messagesByChat.get(chatId) ?? [];
  }

  addMessage(message: MessageRecord): void {
    const list = this.messagesByChat.get(message.chatId);
    if (list) list.push(message);
    else this.messagesByChat.set(message.chatId, [message]);
  }

  /** Everything the sandbox holds, as one value for v8.serialize (persistence.ts): shared records stay shared. */
  snapshot(): SandboxSnapshot {
    const { mappingsByThread, messagesByChat, clockOffsetMs } = this;
    const maps = Object.fromEntries(SNAPSHOT_MAPS.map((key) => [key, this[key]])) as Pick<SandboxState, SnapshotMap>;
    return { ...maps, webhookAttempts: this.webhookAttempts, mappingsByThread, messagesByChat, clockOffsetMs };
  }

  /** Takes over what `snapshot` gave (a fresh state only). */
  restore(snapshot: SandboxSnapshot): void {
    for (const key of SNAPSHOT_MAPS) {
      const target = this[key] as Map<string, unknown>;
      for (const [k, v] of snapshot[key] as Map<string, unknown>) target.set(k, v);
    }
    this.webhookAttempts.push(...snapshot.webhookAttempts);
    for (const [k, v] of snapshot.mappingsByThread) this.mappingsByThread.set(k, v);
    for (const [k, v] of snapshot.messagesByChat) this.messagesByChat.set(k, v);
    this.clockOffsetMs = snapshot.clockOffsetMs;
  }

  /** Forgets a chat, its messages and their files, as a data-retention purge would; mappings keep pointing at it. */
  purgeChat(chatId: string): void {
    this.chats.delete(chatId);
    for (const m of this.messagesOf(chatId)) for (const a of m.attachments ?? []) this.files.delete(a.fileId);
    this.messagesByChat.delete(chatId);
    for (const [id, s] of this.suggestions) if (s.chatId === chatId) this.suggestions.delete(id);
  }
}

const SNAPSHOT_MAPS = ['organizations', 'rooms', 'users', 'tokens', 'configurations', 'visitors', 'chats', 'suggestions', 'files', 'userClients', 'preferences', 'avatars'] as const;
type SnapshotMap = (typeof SNAPSHOT_MAPS)[number];

/** The records of a sandbox (SandboxState.snapshot), its private indexes and its clock. */
export type SandboxSnapshot = Pick<SandboxState, SnapshotMap | 'webhookAttempts'> & {
  mappingsByThread: Map<string, ThreadMapping>;
  messagesByChat: Map<string, MessageRecord[]>;
  clockOffsetMs: number;
};

function mappingKey(configId: string, threadId: string): string {
  return `${configId}\u0000${threadId}`;
}

export interface SeedOptions {
  organizationId: string;
  roomId: string;
  token: string;
}

/** What the sandbox starts with; `GET /_sandbox/info` shows it. */
export interface Seed {
  organization: Organization;
  room: Room;
  agent: User;
  token: ApiToken;
  foreignOrganization: Organization;
  foreignRoom: Room;
  foreignAgent: User;
}

export function seedState(state: SandboxState, options: SeedOptions): Seed {
  const organization = state.addOrganization('Sandbox Organization', options.organizationId);
  const room = state.addRoom(organization.id, 'Support', options.roomId);
  const agent = state.addUser(organization.id, 'Ada Agent', 'Ada');
  const token = state.issueToken(organization.id, agent.id, [SETTINGS_SCOPE], options.token);
  const foreignOrganization = state.addOrganization('Foreign Organization');
  const foreignRoom = state.addRoom(foreignOrganization.id, 'Foreign Support');
  const foreignAgent = state.addUser(foreignOrganization.id, 'Felix Foreign', 'Felix');
  return { organization, room, agent, token, foreignOrganization, foreignRoom, foreignAgent };
}
