/**
 * Reading a channel back (https://api.slack.com/methods/conversations.history,
 * https://api.slack.com/methods/conversations.replies), with Slack's cursor
 * pagination (https://api.slack.com/apis/pagination): `limit` a page (100 by
 * default, at most 999 for history and 1,000 for replies), `has_more`, and
 * `response_metadata.next_cursor` (empty on the last page); a cursor not of
 * this listing is `invalid_cursor`.
 *
 *   conversations.history  a channel's top-level messages (and replies also sent to the channel), newest
 *                          first, after `oldest` and up to `latest` (`inclusive` takes both bounds in)
 *   conversations.replies  a thread: its root first, then its replies oldest first, those bounds applied to
 *                          the replies; thread_not_found for a ts that is no message of the channel
 *
 * Both want the caller in the channel: a private one it is not in is
 * `channel_not_found`, a public one `not_in_channel` (a bot token reads only
 * where the bot is a member). Message metadata is in the answer only with
 * `include_all_metadata=true`.
 */
import { SlackApiError, str, visibleChannel, type ApiContext, type Method } from './slack-methods.ts';
import type { WsMessage, WsUser } from './slack-workspace.ts';

const truthy = (value: unknown) => value === true || value === 'true' || value === '1' || value === 1;

function readable(c: ApiContext, caller: WsUser, id: unknown) {
  const channel = visibleChannel(c, caller, id);
  if (!channel.members.has(caller.id)) throw new SlackApiError('not_in_channel');
  return channel;
}

function within(messages: WsMessage[], args: Record<string, unknown>): WsMessage[] {
  const inclusive = truthy(args.inclusive);
  const oldest = str(args.oldest) === undefined ? undefined : Number(args.oldest);
  const latest = str(args.latest) === undefined ? undefined : Number(args.latest);
  return messages.filter((m) => {
    const ts = Number(m.ts);
    if (oldest !== undefined && (inclusive ? ts < oldest : ts <= oldest)) return false;
    if (latest !== undefined && (inclusive ? ts > latest : ts >= latest)) return false;
    return true;
  });
}

/** One page of `all` after `args.cursor`, in Slack's answer shape. */
function page(c: ApiContext, all: WsMessage[], args: Record<string, unknown>, max: number, listing: string, head: WsMessage[] = []): Record<string, unknown> {
  const limitText = str(args.limit);
  const limit = limitText === undefined ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1) throw new SlackApiError('invalid_limit');
  const size = Math.min(limit, max);
  let offset = 0;
  const cursor = str(args.cursor);
  if (cursor !== undefined) {
    const decoded = /^(\w+):(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!decoded || decoded[1] !== listing) throw new SlackApiError('invalid_cursor');
    offset = Number(decoded[2]);
  }
  const slice = all.slice(offset, offset + size);
  const more = offset + size < all.length;
  const withMetadata = truthy(args.include_all_metadata);
  const shown = [...(offset === 0 ? head : []), ...slice].map((m) => c.json.message(m, { withMetadata }));
  return {
    messages: shown,
    has_more: more,
    pin_count: 0,
    response_metadata: { next_cursor: more ? Buffer.from(`${listing}:${offset + size}`).toString('base64url') : '' },
  };
}

export const conversationMethods: Record<string, Method> = {
  'conversations.history': ({ args, caller }, c) => {
    const channel = readable(c, caller, args.channel);
    const top = c.ws.list(channel.id).filter((m) => m.threadTs === undefined || m.threadTs === m.ts || m.subtype === 'thread_broadcast');
    return page(c, within(top, args).reverse(), args, 999, 'history');
  },

  'conversations.replies': ({ args, caller }, c) => {
    const channel = readable(c, caller, args.channel);
    const ts = str(args.ts);
    const root = ts === undefined ? undefined : c.ws.message(channel.id, ts);
    if (root === undefined || root.deleted) throw new SlackApiError('thread_not_found');
    const rootTs = root.threadTs ?? root.ts;
    const parent = c.ws.message(channel.id, rootTs)!;
    const replies = c.ws.list(channel.id).filter((m) => m.threadTs === rootTs && m.ts !== rootTs);
    return page(c, within(replies, args), args, 1_000, 'replies', [parent]);
  },
};
