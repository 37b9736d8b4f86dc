/**
 * Messages that wait in the inbox (inbox.ts), with a recording context and
 * the Slack counterpart: a thread stays in order while a message's file is
 * tried again (Slack answered 503), the reply written meanwhile waiting
 * behind it; Slack's answer to a file message comes once the message is in
 * the state, before its download; an entry a stopped replica left is taken
 * up by the poller's sweep and posted once; the fifth try posts the message
 * with the file listed as not kept.
 */
import { describe, expect, it } from 'vitest';
import slackConnector from '../../../connectors/slack/index.ts';
import { pruneSeen, seenKey, SEEN_KEPT_SECONDS } from '../../../connectors/slack/customer-messages.ts';
import { MAX_TRIES, SWEEP_AGE_MS } from '../../../connectors/slack/inbox.ts';
import { recordingContext, type RecordingContext } from '../../../src/connector/testing/index.ts';
import type { ConnectorInstance } from '../../../src/connector/api.ts';
import type { TestSlack } from '../../support/slack/slack.ts';
import { sleep, until } from '../../support/wait.ts';
import { connectorEntry, slack } from './support.ts';

async function connector(s: TestSlack): Promise<{ ctx: RecordingContext; instance: ConnectorInstance }> {
  const ctx = recordingContext({ name: 'slack' });
  const { name: _n, type: _t, ...settings } = connectorEntry(s);
  const instance = await slackConnector.create(slackConnector.configSchema.parse(settings), ctx);
  await instance.start(new AbortController().signal);
  return { ctx, instance };
}

/** The event of a message as Slack would POST it to the route, signed. */
function deliver(s: TestSlack, ctx: RecordingContext, event: Record<string, unknown>) {
  const body = JSON.stringify(s.events.envelope(event));
  return ctx.request('POST', '/events', { body, headers: { 'content-type': 'application/json', ...s.events.signedHeaders(body) } });
}

describe('the Slack connector’s inbox', () => {
  it('a thread stays in order while a file is tried again; Slack is answered before the download', { timeout: 30_000 }, async () => {
    const s = await slack();
    const { ctx, instance } = await connector(s);
    const root = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: 'Broken again' });
    expect((await deliver(s, ctx, { type: 'message', channel: s.support.id, user: s.customer.id, text: 'Broken again', ts: root.ts })).status).toBe(200);
    s.failures.push({ method: 'file download', status: 503, times: 1 });
    const file = s.ws.addFile({ name: 'trace.txt', mimetype: 'text/plain', content: Buffer.from('trace'), user: s.customer.id });
    const shared = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: '', threadTs: root.ts, subtype: 'file_share', files: [file.id] });
    const sharedJson = { type: 'message', channel: s.support.id, user: s.customer.id, text: '', ts: shared.ts, thread_ts: root.ts, subtype: 'file_share', files: [{ id: file.id, file_access: 'check_file_info' }] };
    expect((await deliver(s, ctx, sharedJson)).status).toBe(200);
    expect(ctx.submits).toHaveLength(1);
    expect(await ctx.state.keys('inbox:')).toEqual([`inbox:${s.support.id}:${root.ts}:${shared.ts}`]);
    const later = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: 'Did you get it?', threadTs: root.ts });
    expect((await deliver(s, ctx, { type: 'message', channel: s.support.id, user: s.customer.id, text: 'Did you get it?', ts: later.ts, thread_ts: root.ts })).status).toBe(200);
    await until(() => ctx.submits.length === 3, 10_000, 'the thread’s messages');
    // The reply written meanwhile did not cut the file's backoff short.
    const downloads = s.calls.filter((c) => c.method === 'file download');
    expect(downloads.map((c) => c.status)).toEqual([503, 200]);
    expect(downloads[1]!.at - downloads[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(ctx.submits.map((m) => [m.messageId, m.body.replace(/ http\S+$/, ' <link>')])).toEqual([
      [`${s.support.id}/${root.ts}`, 'Broken again'],
      [`${s.support.id}/${shared.ts}`, '[attachment: trace.txt, 5 B] <link>'],
      [`${s.support.id}/${later.ts}`, 'Did you get it?'],
    ]);
    expect(await ctx.state.keys('inbox:')).toEqual([]);
    await instance.stop();
  });

  it('a reply with a file that comes while its root is still being submitted is posted after the root', { timeout: 30_000 }, async () => {
    const s = await slack();
    const { ctx, instance } = await connector(s);
    // The root's users.info is answered late: its submit is still under way when a colleague's reply with a file comes
    // (whose own users.info is answered at once).
    s.failures.push({ method: 'users.info', delayMs: 800, times: 1 });
    const root = s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: 'Printer on fire' });
    const file = s.ws.addFile({ name: 'photo.jpg', mimetype: 'image/jpeg', content: Buffer.from('jpeg'), user: s.colleague.id });
    const shared = s.ws.addMessage({ channel: s.support.id, user: s.colleague.id, text: '', threadTs: root.ts, subtype: 'file_share', files: [file.id] });
    const rootAnswer = deliver(s, ctx, { type: 'message', channel: s.support.id, user: s.customer.id, text: 'Printer on fire', ts: root.ts });
    await sleep(300); // the root's users.info under way (the server records a call once it answers)
    const sharedJson = { type: 'message', channel: s.support.id, user: s.colleague.id, text: '', ts: shared.ts, thread_ts: root.ts, subtype: 'file_share', files: [{ id: file.id, file_access: 'check_file_info' }] };
    expect((await deliver(s, ctx, sharedJson)).status).toBe(200);
    expect((await rootAnswer).status).toBe(200);
    await until(() => ctx.submits.length === 2, 10_000, 'both messages');
    expect(ctx.submits.map((m) => m.messageId)).toEqual([`${s.support.id}/${root.ts}`, `${s.support.id}/${shared.ts}`]);
    await instance.stop();
  });

  it('an entry a stopped replica left is posted once by the poller’s sweep; its last try posts it with the file not kept', { timeout: 30_000 }, async () => {
    const s = await slack();
    const { ctx, instance } = await connector(s);
    const post = (ts: string, files: { id: string }[]) => ({ channel: s.support.id, ts, rootTs: ts, user: s.customer.id, text: 'left behind', files });
    const file = s.ws.addFile({ name: 'a.txt', mimetype: 'text/plain', content: Buffer.from('a'), user: s.customer.id });
    s.ws.addMessage({ channel: s.support.id, user: s.customer.id, text: '', files: [file.id] });
    const [one, two] = [s.ws.nextTs(), s.ws.nextTs()];
    await ctx.state.set(`inbox:${s.support.id}:${one}:${one}`, { post: post(one, []), received_at: Date.now() - SWEEP_AGE_MS - 1, tries: 0 });
    await ctx.state.set(`inbox:${s.support.id}:${two}:${two}`, { post: post(two, [{ id: file.id }]), received_at: Date.now() - SWEEP_AGE_MS - 1, tries: MAX_TRIES - 1 });
    s.failures.push({ method: 'file download', status: 503, times: 1 });
    const abort = new AbortController();
    const polling = instance.poll!({ signal: abort.signal, state: ctx.state });
    await until(() => ctx.submits.length === 2, 10_000, 'the entries the sweep took up');
    abort.abort();
    await polling;
    expect(ctx.submits.map((m) => m.body)).toEqual(['left behind', expect.stringMatching(/^left behind\n\n\[attachment: a\.txt, 1 B — not kept: it could not be downloaded \(Slack at .* answered the download of a\.txt with 503\)\]$/)]);
    expect(await ctx.state.keys('inbox:')).toEqual([]);
    expect((await ctx.state.keys('seen:')).length).toBe(2);
    await instance.stop();
  });

  it('`seen:` entries are pruned an hour after their message, in batches; newer ones and other channels’ stay', async () => {
    const ctx = recordingContext({ name: 'slack' });
    const now = 1_718_000_000;
    for (let i = 0; i < 1_200; i++) await ctx.state.set(seenKey('C0SUPPORT01', `${now - SEEN_KEPT_SECONDS - 1_200 + i}.000100`), true);
    await ctx.state.set(seenKey('C0SUPPORT01', `${now - 60}.000100`), true);
    await ctx.state.set(seenKey('C0OTHER001', `${now - 2 * SEEN_KEPT_SECONDS}.000100`), true);
    expect(await pruneSeen(ctx.state, ['C0SUPPORT01'], now)).toBe(1_200);
    expect(await ctx.state.keys('seen:', 10)).toEqual([seenKey('C0OTHER001', `${now - 2 * SEEN_KEPT_SECONDS}.000100`), seenKey('C0SUPPORT01', `${now - 60}.000100`)]);
  });
});
