/**
 * A customer's Slack message as the message the platform gets, submitted:
 *
 *   threadKey   <channel>/<root ts>     (slack-ids.ts)
 *   messageId   <channel>/<ts>          Slack's own id: a retry, a catch-up or a second replica's copy is a duplicate
 *   sender      the Slack user id, named as users.info names them (display name, else real name)
 *   body        the text as Slack shows it (mrkdwn.ts), then a line per file (customer-files.ts)
 *   variables   slack_user_id, slack_team_id (another organisation's in Slack Connect), slack_channel,
 *               slack_thread_url (the thread's first message in Slack), email (with users:read.email)
 *
 * With the message, in the same transaction, the state entry
 * `seen:<channel>:<ts>` is written: the events route and the catch-up read
 * it to pass over a message already posted without downloading its files
 * again. The poller deletes entries more than `SEEN_KEPT_SECONDS` old
 * (`pruneSeen`): Slack's retries come within minutes, and the catch-up
 * reads back a minute behind Slack's clock.
 */
import type { ConnectorContext, ConnectorState, SubmitMessage, SubmitResult } from '../../src/connector/api.ts';
import type { FileLimits } from './config.ts';
import { customerFileLines } from './customer-files.ts';
import type { CustomerPost } from './message-verdict.ts';
import { mentionedUsers, readableText } from './mrkdwn.ts';
import type { SlackApi } from './slack-api.ts';
import { messageIdOf, permalinkOf, threadKeyOf, tsSeconds } from './slack-ids.ts';
import type { SlackUsers } from './slack-users.ts';

/** How long the users.info look-ups of one message may take on the events route (Slack wants its answer within 3 s). */
export const QUICK_LOOKUPS_MS = 1_500;

export interface Workspace {
  /** The workspace's address (auth.test's `url`), for links. */
  url?: string | undefined;
  teamId?: string | undefined;
}

export interface SubmitOptions {
  signal: AbortSignal;
  /** Files failing for now are listed as not kept instead of failing the message. */
  lastTry: boolean;
  /** On the events route: the look-ups bounded by QUICK_LOOKUPS_MS together; past it, names stay unknown. */
  quick?: boolean;
}

/** How long a message's `seen:` entry is kept (by its ts). */
export const SEEN_KEPT_SECONDS = 3_600;
const PRUNE_BATCH = 500;

export function seenKey(channel: string, ts: string): string {
  return `seen:${channel}:${ts}`;
}

/** Deletes the `seen:` entries of `channels` for messages older than `nowSeconds` − SEEN_KEPT_SECONDS (keys sort by ts). */
export async function pruneSeen(state: ConnectorState, channels: readonly string[], nowSeconds: number): Promise<number> {
  let pruned = 0;
  for (const channel of channels) {
    const prefix = `seen:${channel}:`;
    for (let more = true; more; ) {
      const keys = await state.keys(prefix, PRUNE_BATCH);
      const old = keys.filter((key) => tsSeconds(key.slice(prefix.length)) < nowSeconds - SEEN_KEPT_SECONDS);
      for (const key of old) await state.delete(key);
      pruned += old.length;
      more = old.length === PRUNE_BATCH;
    }
  }
  return pruned;
}

export class CustomerMessages {
  readonly #ctx: ConnectorContext;
  readonly #api: SlackApi;
  readonly #users: SlackUsers;
  readonly #limits: FileLimits;
  readonly #workspace: () => Workspace;

  constructor(deps: { ctx: ConnectorContext; api: SlackApi; users: SlackUsers; limits: FileLimits; workspace: () => Workspace }) {
    this.#ctx = deps.ctx;
    this.#api = deps.api;
    this.#users = deps.users;
    this.#limits = deps.limits;
    this.#workspace = deps.workspace;
  }

  /** Whether the message was posted before (its `seen:` entry is there). */
  async seen(post: Pick<CustomerPost, 'channel' | 'ts'>): Promise<boolean> {
    return (await this.#ctx.state.get(seenKey(post.channel, post.ts))) !== undefined;
  }

  /** Builds the message (downloading and keeping its files) and submits it with its `seen:` entry. */
  async submit(post: CustomerPost, options: SubmitOptions): Promise<SubmitResult> {
    const lookups = options.quick ? AbortSignal.any([options.signal, AbortSignal.timeout(QUICK_LOOKUPS_MS)]) : options.signal;
    const unknown = <T>(fallback: T) => (err: unknown): T => {
      if (options.signal.aborted) throw err;
      return fallback;
    };
    const person = await this.#users.person(post.user, lookups).catch(unknown(undefined));
    const names = await this.#users.names(mentionedUsers(post.text), lookups).catch(unknown(new Map<string, string>()));
    const text = readableText(post.text, names);
    const lines = post.files.length === 0 ? [] : await customerFileLines(post.files, this.#api, this.#ctx.files, this.#limits, options);
    const body = lines.length === 0 ? text : text === '' ? lines.join('\n') : `${text}\n\n${lines.join('\n')}`;
    const workspace = this.#workspace();
    const variables: Record<string, string> = { slack_user_id: post.user, slack_channel: post.channel };
    const team = post.userTeam ?? person?.teamId ?? workspace.teamId;
    if (team) variables.slack_team_id = team;
    const link = permalinkOf(workspace.url, post.channel, post.rootTs);
    if (link) variables.slack_thread_url = link;
    if (person?.email) variables.email = person.email;
    const message: SubmitMessage = {
      threadKey: threadKeyOf(post.channel, post.rootTs),
      messageId: messageIdOf(post.channel, post.ts),
      senderId: post.user,
      body: body === '' ? '(an empty message)' : body,
      variables,
    };
    if (person?.name) message.senderName = person.name;
    return this.#ctx.submit(message, { state: { [seenKey(post.channel, post.ts)]: true } });
  }
}
