/**
 * A Slack workspace for tests: the counterpart of the `slack` connector, a
 * real HTTP server on port 0 (the Web API, the upload URLs, private file
 * downloads) and Slack's Events API sender, in memory, written from Slack's
 * published reference:
 *
 * - https://api.slack.com/methods (auth.test, users.info, chat.postMessage, conversations.history,
 *   conversations.replies, files.info, files.getUploadURLExternal, files.completeUploadExternal)
 * - https://api.slack.com/web (calling the Web API: tokens, content types, `ok`/`error`)
 * - https://api.slack.com/apis/pagination (cursor pagination)
 * - https://api.slack.com/apis/rate-limits (tiers, chat.postMessage per channel, 429 and Retry-After)
 * - https://api.slack.com/messaging/files (the external upload flow; private file downloads)
 * - https://api.slack.com/types/file, https://api.slack.com/types/user
 * - https://api.slack.com/apis/events-api (url_verification, event_callback, retries, X-Slack-Retry-Num)
 * - https://api.slack.com/events/message (and message_changed, message_deleted, file_share, bot_message)
 * - https://api.slack.com/authentication/verifying-requests-from-slack (v0 signatures)
 * - https://api.slack.com/messaging/retrieving#metadata (message metadata, include_all_metadata)
 *
 * The workspace has the app's bot user (its token and signing secret), a
 * customer, a colleague, a person of another organisation (Slack Connect),
 * another app's bot, and channels: `support` (the connector's), `elsewhere`
 * (the bot is in it, the connector does not watch it) and `shared` (Slack
 * Connect: files named by id in events). The helpers act as these people do
 * in Slack: each message is stored, then sent to the Request URL as its
 * event (`subscribe` sets the URL, after Slack's url_verification).
 */
import { randomBytes } from 'node:crypto';
import { EventSender, type EventAttempt } from './slack-event-sender.ts';
import { SlackJson } from './slack-json.ts';
import { RateTiers } from './slack-rate-tiers.ts';
import { startSlackServer, type OrderedFailure, type RecordedCall } from './slack-server.ts';
import { SlackWorkspace, type WsChannel, type WsMessage, type WsUser } from './slack-workspace.ts';

export interface SlackOptions {
  /** How long the sender waits for an answer before it retries (Slack: 3 s); 0: every answer comes too late. */
  eventTimeoutMs?: number;
  /** The waits before the 1st, 2nd and 3rd retry (Slack: at once, a minute, five minutes). */
  retryDelaysMs?: number[];
  /** The largest upload taken (Slack: 1 GB). */
  maxUploadBytes?: number;
}

export interface SlackFileUpload {
  name: string;
  mimetype: string;
  content: Buffer;
}

/** A message written in Slack, and its event's delivery (every attempt, once the last ended). */
export interface Said {
  ts: string;
  delivered: Promise<EventAttempt[]>;
}

export interface SayOptions {
  threadTs?: string;
  user?: WsUser;
  /** Stored without an event: Slack gave up delivering it (for the catch-up). */
  silently?: boolean;
}

export interface TestSlack {
  /** The Web API's root, for the connector's `api_url`. */
  url: string;
  root: string;
  ws: SlackWorkspace;
  limits: RateTiers;
  calls: RecordedCall[];
  failures: OrderedFailure[];
  events: EventSender;
  signingSecret: string;
  bot: WsUser & { token: string };
  customer: WsUser;
  colleague: WsUser;
  external: WsUser;
  otherBot: WsUser;
  support: WsChannel;
  elsewhere: WsChannel;
  shared: WsChannel;
  /** Sets the Request URL, after the url_verification handshake; throws when the URL does not answer it. */
  subscribe(url: string): Promise<void>;
  customerSays(channel: WsChannel, text: string, options?: SayOptions): Promise<Said>;
  customerSharesFile(channel: WsChannel, file: SlackFileUpload, options?: SayOptions & { text?: string }): Promise<Said>;
  otherBotSays(channel: WsChannel, text: string, options?: SayOptions): Promise<Said>;
  edit(channel: WsChannel, ts: string, text: string): Promise<EventAttempt[]>;
  remove(channel: WsChannel, ts: string): Promise<EventAttempt[]>;
  botRemovedFrom(channel: WsChannel): void;
  /** Messages the app posted in `channel` (in the thread of `rootTs`, when given), oldest first. */
  botMessages(channel: WsChannel, rootTs?: string): WsMessage[];
  fileBytes(fileId: string): Buffer;
  revokeBotToken(): void;
  close(): Promise<void>;
}

export async function startSlack(options: SlackOptions = {}): Promise<TestSlack> {
  const ws = new SlackWorkspace();
  const limits = new RateTiers();
  const signingSecret = randomBytes(16).toString('hex');
  const bot = ws.addUser({ name: 'threadgate', realName: 'Threadgate', displayName: '', isBot: true, botId: ws.id('B0'), appId: ws.id('A0') });
  const token = ws.newToken(bot.id, 'xoxb');
  const customer = ws.addUser({ name: 'ann', realName: 'Ann Customer', displayName: 'Ann', email: 'ann@customer.test', isBot: false });
  const colleague = ws.addUser({ name: 'sam', realName: 'Sam Colleague', displayName: '', isBot: false });
  const external = ws.addUser({ name: 'eve', realName: 'Eve Partner', displayName: 'Eve (Partner Co)', isBot: false, teamId: 'T0PARTNER1' });
  const otherBot = ws.addUser({ name: 'deploybot', realName: 'Deploy Bot', displayName: '', isBot: true, botId: ws.id('B0'), appId: ws.id('A0') });
  const support = ws.addChannel('support', { members: [bot.id, customer.id, colleague.id, otherBot.id] });
  const elsewhere = ws.addChannel('elsewhere', { members: [bot.id, customer.id] });
  const shared = ws.addChannel('shared', { connect: true, members: [bot.id, external.id, customer.id] });
  const events = new EventSender({ signingSecret, teamId: ws.teamId, appId: bot.appId!, botUserId: bot.id, ...(options.eventTimeoutMs !== undefined ? { timeoutMs: options.eventTimeoutMs } : {}), ...(options.retryDelaysMs ? { retryDelaysMs: options.retryDelaysMs } : {}) });

  let json: SlackJson | undefined;
  const eventOf = (m: WsMessage) => {
    const channel = ws.channels.get(m.channel)!;
    return { ...json!.message(m, { channel: true, fileAccess: channel.connect }), channel_type: channel.isPrivate ? 'group' : 'channel' };
  };
  const emit = (m: WsMessage) => void events.send(eventOf(m));
  const server = await startSlackServer(ws, limits, (root) => {
    json = new SlackJson(ws, root);
    return { ws, json, root, maxUploadBytes: options.maxUploadBytes ?? 1_073_741_824, emit };
  });

  const say = (channel: WsChannel, fields: Partial<WsMessage>, o: SayOptions = {}): Said => {
    const author = o.user ?? customer;
    const message = ws.addMessage({ channel: channel.id, user: author.id, text: '', ...(o.threadTs ? { threadTs: o.threadTs } : {}), ...fields });
    return { ts: message.ts, delivered: o.silently ? Promise.resolve([]) : events.send(eventOf(message)) };
  };
  const changed = (channel: WsChannel, event: Record<string, unknown>) => events.send({ type: 'message', channel: channel.id, hidden: true, ts: ws.nextTs(), ...event, channel_type: channel.isPrivate ? 'group' : 'channel' });

  return {
    url: `${server.root}/api`,
    root: server.root,
    ws,
    limits,
    calls: server.calls,
    failures: server.failures,
    events,
    signingSecret,
    bot: Object.assign(bot, { token }),
    customer,
    colleague,
    external,
    otherBot,
    support,
    elsewhere,
    shared,
    async subscribe(url) {
      if (!(await events.verify(url))) throw new Error(`the Request URL ${url} did not answer Slack's url_verification challenge`);
    },
    customerSays: async (channel, text, o) => say(channel, { text }, o),
    async customerSharesFile(channel, file, o = {}) {
      const stored = ws.addFile({ ...file, user: (o.user ?? customer).id });
      return say(channel, { text: o.text ?? '', subtype: 'file_share', files: [stored.id] }, o);
    },
    otherBotSays: async (channel, text, o = {}) => say(channel, { text, user: undefined, botId: otherBot.botId!, appId: otherBot.appId!, username: otherBot.name, subtype: 'bot_message' }, o),
    edit(channel, ts, text) {
      const message = ws.message(channel.id, ts)!;
      const before = json!.message(message);
      message.text = text;
      message.editedTs = ws.nextTs();
      return changed(channel, { subtype: 'message_changed', message: json!.message(message), previous_message: before });
    },
    remove(channel, ts) {
      const message = ws.message(channel.id, ts)!;
      message.deleted = true;
      return changed(channel, { subtype: 'message_deleted', deleted_ts: ts, previous_message: json!.message(message) });
    },
    botRemovedFrom: (channel) => void channel.members.delete(bot.id),
    botMessages: (channel, rootTs) => ws.list(channel.id).filter((m) => m.user === bot.id && (rootTs === undefined || m.threadTs === rootTs)),
    fileBytes: (fileId) => ws.files.get(fileId)!.content,
    revokeBotToken: () => void ws.revoked.add(token),
    close: async () => {
      await events.close();
      await server.close();
    },
  };
}
