/**
 * The reply writer's exactly-once delivery and errors, against the Slack
 * counterpart with a recording context (no gateway): a retry after Slack
 * took a part but its answer was lost (the progress never written) finds the
 * part by its metadata and posts nothing again; a retry after the files were
 * shared but not recorded shares nothing again; a long reply is posted in
 * parts, in order; Slack's refusals and its 429 are the errors the job queue
 * reads (not_in_channel permanent, with Slack's word; 429 a wait).
 */
import { describe, expect, it } from 'vitest';
import slackConnector from '../../../connectors/slack/index.ts';
import { SlackNotInChannelError, SlackRateLimitedError } from '../../../connectors/slack/slack-errors.ts';
import { fileAttachment, messageCreated, recordingContext, replySuggestionCreated, type RecordingContext } from '../../../src/connector/testing/index.ts';
import type { ConnectorInstance } from '../../../src/connector/api.ts';
import type { TestSlack } from '../../support/slack/slack.ts';
import { connectorEntry, slack } from './support.ts';

const FILE_URL = 'https://files.platform.example/steps.pdf';
const steps = Buffer.from('%PDF-1.4 the steps');

async function writer(s: TestSlack): Promise<{ ctx: RecordingContext; instance: ConnectorInstance; rootTs: string }> {
  const root = await s.customerSays(s.support, 'Help?', { silently: true });
  const ctx = recordingContext({ name: 'slack', files: { [FILE_URL]: { content: steps, contentType: 'application/pdf', filename: 'steps.pdf' } } });
  const { name: _n, type: _t, ...settings } = connectorEntry(s);
  const instance = await slackConnector.create(slackConnector.configSchema.parse(settings), ctx);
  await ctx.threads.attach(`${s.support.id}/${root.ts}`, []);
  return { ctx, instance, rootTs: root.ts };
}

/** Makes the state's `n`-th write from now fail, as a crash right after Slack answered would lose it. */
function loseWrite(ctx: RecordingContext, n: number): void {
  const set = ctx.state.set.bind(ctx.state);
  let count = 0;
  ctx.state.set = async (key, value) => {
    count += 1;
    if (count === n) throw new Error('the gateway stopped before it wrote down what Slack answered');
    return set(key, value);
  };
}

const run = (attempt: number) => ({ signal: new AbortController().signal, attempt });

describe('the Slack reply writer', () => {
  it('a retry after a lost answer finds the part Slack took by its metadata, and the shared files by their ids: nothing twice', async () => {
    const s = await slack();
    const { ctx, instance, rootTs } = await writer(s);
    const thread = await ctx.threads.get(`${s.support.id}/${rootTs}`);
    const event = messageCreated({ threadId: thread!.threadId, text: 'Here are the steps.', senderName: 'Sam Agent', senderPublicName: 'Sam', files: [fileAttachment('steps.pdf', { url: FILE_URL })] });
    loseWrite(ctx, 2);
    await expect(instance.deliver(event, thread, run(1))).rejects.toThrow(/stopped before/);
    expect(s.botMessages(s.support, rootTs).map((m) => m.text)).toEqual(['*Sam*: Here are the steps.']);
    // The second try shares the files; the write saying so is lost too.
    loseWrite(ctx, 1);
    await expect(instance.deliver(event, thread, run(2))).rejects.toThrow(/stopped before/);
    expect(s.botMessages(s.support, rootTs).map((m) => m.files.length)).toEqual([0, 1]);
    const result = await instance.deliver(event, thread, run(3));
    const posted = s.botMessages(s.support, rootTs);
    expect(posted.map((m) => [m.text, m.files.length])).toEqual([['*Sam*: Here are the steps.', 0], ['', 1]]);
    expect(s.fileBytes(posted[1]!.files[0]!).equals(steps)).toBe(true);
    expect(result).toEqual({ externalId: posted[0]!.ts });
    expect(s.calls.filter((c) => c.method === 'files.completeUploadExternal').map((c) => c.status)).toEqual([200]);
    expect(s.calls.filter((c) => c.method === 'chat.postMessage').length).toBe(1);
    await instance.stop();
  });

  it('a long reply goes as parts of at most 4,000 characters, in order; a suggestion is skipped', async () => {
    const s = await slack();
    const { ctx, instance, rootTs } = await writer(s);
    const thread = await ctx.threads.get(`${s.support.id}/${rootTs}`);
    const paragraphs = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: ${'do the thing carefully '.repeat(30).trim()}.`);
    await instance.deliver(messageCreated({ threadId: thread!.threadId, text: paragraphs.join('\n\n'), senderName: 'Sam' }), thread, run(1));
    const parts = s.botMessages(s.support, rootTs).map((m) => m.text);
    expect(parts.length).toBe(3);
    expect(parts.every((p) => p.length <= 4_000)).toBe(true);
    expect(parts.join('\n\n')).toBe(`*Sam*: ${paragraphs.join('\n\n')}`);
    expect(await instance.deliver(replySuggestionCreated({ threadId: thread!.threadId }), thread, run(1))).toEqual({ skipped: expect.stringMatching(/not posted to Slack/) });
    await instance.stop();
  });

  it('not_in_channel is permanent with Slack’s word; a 429 is a wait of its Retry-After; an unknown thread is refused', async () => {
    const s = await slack();
    const { ctx, instance, rootTs } = await writer(s);
    const thread = await ctx.threads.get(`${s.support.id}/${rootTs}`);
    s.failures.push({ method: 'chat.postMessage', status: 429, retryAfter: 7, times: 1 });
    const limited = await instance.deliver(messageCreated({ threadId: thread!.threadId, text: 'One' }), thread, run(1)).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(SlackRateLimitedError);
    expect((limited as SlackRateLimitedError).retryAfterMs).toBe(7_000);
    s.botRemovedFrom(s.support);
    const refused = await instance.deliver(messageCreated({ threadId: thread!.threadId, text: 'Two' }), thread, run(1)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SlackNotInChannelError);
    expect(refused).toMatchObject({ code: 'TG_SLACK_NOT_IN_CHANNEL', permanent: true, slackError: 'not_in_channel', message: expect.stringMatching(/^Slack refused chat\.postMessage: not_in_channel/) });
    await expect(instance.deliver(messageCreated({ threadId: 'slack:x' }), undefined, run(1))).rejects.toMatchObject({ code: 'TG_SLACK_THREAD_UNKNOWN' });
    expect(ctx.rawLog()).not.toContain(s.bot.token);
    await instance.stop();
  });
});
