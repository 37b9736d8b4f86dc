/**
 * What a Slack message becomes (message-verdict.ts), and which thread it
 * belongs to: a top-level message starts its own thread, a reply and a
 * reply also sent to the channel belong to their root's; the gateway's own
 * messages (by bot user, bot id or app) and messages of other channels are
 * ignored; other bots' messages, edits and deletions are recorded as
 * skipped with their codes; a link preview's change and Slack's notices
 * (joins) are ignored.
 */
import { describe, expect, it } from 'vitest';
import { verdictOf, type Self } from '../../../connectors/slack/message-verdict.ts';
import { threadKeyOf, threadOfKey } from '../../../connectors/slack/slack-ids.ts';
import type { SlackMessage } from '../../../connectors/slack/slack-schemas.ts';

const C = 'C0SUPPORT01';
const channels = new Set([C]);
const self: Self = { userId: 'U0BOT0001', botId: 'B0BOT0001', appId: 'A0APP0001' };
const msg = (fields: Partial<SlackMessage>): SlackMessage => ({ type: 'message', ts: '1718000000.000100', user: 'U0ANN0001', text: 'Hello', ...fields });
const verdict = (fields: Partial<SlackMessage>, channel = C) => verdictOf(msg(fields), channel, channels, self);

describe('a Slack message’s verdict and thread', () => {
  it('a top-level message is the root of its thread; a reply and a broadcast reply belong to the root', () => {
    expect(verdict({})).toEqual({ kind: 'post', post: { channel: C, ts: '1718000000.000100', rootTs: '1718000000.000100', user: 'U0ANN0001', text: 'Hello', files: [] } });
    expect(verdict({ ts: '1718000050.000200', thread_ts: '1718000000.000100' })).toMatchObject({ kind: 'post', post: { rootTs: '1718000000.000100' } });
    expect(verdict({ ts: '1718000060.000300', thread_ts: '1718000000.000100', subtype: 'thread_broadcast' })).toMatchObject({ kind: 'post', post: { rootTs: '1718000000.000100' } });
    expect(threadKeyOf(C, '1718000000.000100')).toBe('C0SUPPORT01/1718000000.000100');
    expect(threadOfKey('C0SUPPORT01/1718000000.000100')).toEqual({ channel: C, rootTs: '1718000000.000100' });
    expect(threadOfKey('a mail thread')).toBeUndefined();
  });

  it('a file share is posted with its files; a Slack Connect user’s team is kept', () => {
    const files = [{ id: 'F0001', name: 'a.pdf' }];
    expect(verdict({ subtype: 'file_share', text: '', files, user_team: 'T0PARTNER1' })).toMatchObject({ kind: 'post', post: { files, text: '', userTeam: 'T0PARTNER1' } });
  });

  it('the gateway’s own messages are ignored, by its bot user, its bot id or its app', () => {
    for (const own of [{ user: self.userId }, { bot_id: self.botId, user: 'U0OTHER' }, { app_id: self.appId }]) expect(verdict(own).kind).toBe('ignore');
    expect(verdict({}, 'C0ELSEWHERE1')).toEqual({ kind: 'ignore', why: 'a message in C0ELSEWHERE1, not a configured channel' });
  });

  it('another bot’s message, an edit, a deletion and an empty message are recorded as skipped, each with its code', () => {
    expect(verdict({ subtype: 'bot_message', bot_id: 'B0DEPLOY1', username: 'deploybot', user: undefined })).toMatchObject({ kind: 'skip', record: { messageId: `${C}/1718000000.000100`, code: 'TG_SLACK_BOT_MESSAGE' } });
    const changed = verdict({ subtype: 'message_changed', ts: '1718000099.000900', message: { ts: '1718000000.000100', user: 'U0ANN0001', text: 'Hello!' }, previous_message: { ts: '1718000000.000100', text: 'Hello' } });
    expect(changed).toMatchObject({ kind: 'skip', record: { messageId: `${C}/1718000000.000100#edited@1718000099.000900`, code: 'TG_SLACK_MESSAGE_EDITED', senderId: 'U0ANN0001' } });
    expect(verdict({ subtype: 'message_deleted', deleted_ts: '1718000000.000100', user: undefined })).toMatchObject({ kind: 'skip', record: { messageId: `${C}/1718000000.000100#deleted`, code: 'TG_SLACK_MESSAGE_DELETED' } });
    expect(verdict({ text: '  ' })).toMatchObject({ kind: 'skip', record: { code: 'TG_SLACK_MESSAGE_EMPTY' } });
  });

  it('a change that is no edit (a link preview), a change of the gateway’s own message and Slack’s notices are ignored', () => {
    const same = { ts: '1718000000.000100', user: 'U0ANN0001', text: 'see https://x.test' };
    expect(verdict({ subtype: 'message_changed', message: same, previous_message: same }).kind).toBe('ignore');
    expect(verdict({ subtype: 'message_changed', message: { ...same, user: self.userId }, previous_message: { text: 'x' } }).kind).toBe('ignore');
    expect(verdict({ subtype: 'channel_join', text: '<@U0ANN0001> has joined the channel' })).toEqual({ kind: 'ignore', why: 'a channel_join notice' });
  });
});
