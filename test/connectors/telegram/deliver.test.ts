/**
 * `deliver` of the Telegram connector against the counterpart, through a
 * recording context: a long reply goes as several messages and, delivered
 * again (attempt 2), sends nothing more; a retry after a failed part resumes
 * after the parts Telegram has; an image goes as a photo, a file as a
 * document, and files that cannot go are named under the text; Telegram's
 * refusals become the errors the job queue acts on (a blocked bot and an
 * unknown chat dead-letter with Telegram's words, a 429 waits its
 * retry_after, a refused token is retried and makes health say so); a group
 * that became a supergroup is followed; suggestions are skipped; the token
 * is in no error and no log line.
 */
import { describe, expect, it } from 'vitest';
import telegram from '../../../connectors/telegram/index.ts';
import { PermanentDeliveryError, RetryLaterError, TransientDeliveryError, type ConnectorInstance } from '../../../src/connector/api.ts';
import { fileAttachment, imageAttachment, messageCreated, recordingContext, replySuggestionCreated, type RecordingContext, type ServedFile } from '../../../src/connector/testing/index.ts';
import type { TestTelegram } from '../../support/telegram/telegram.ts';
import { ReplyLedger } from '../../../connectors/telegram/reply-progress.ts';
import { settingsFor, telegram as startCounterpart } from './support.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2_000, 3)]);
const once = (attempt = 1) => ({ signal: AbortSignal.timeout(10_000), attempt });

async function setup(options: { files?: Record<string, ServedFile>; extra?: Record<string, unknown>; token?: string } = {}) {
  const tg = await startCounterpart();
  const ctx = recordingContext({ name: 'tg', ...(options.files ? { files: options.files } : {}) });
  const settings = { ...settingsFor(tg, options.extra), ...(options.token ? { bot_token: options.token } : {}) };
  const instance = await telegram.create(telegram.configSchema.parse(settings), ctx);
  const ann = tg.newCustomer({ first_name: 'Ann' });
  const thread = await ctx.threads.attach(String(ann.id), []);
  return { tg, ctx, instance, ann, thread };
}

const reply = (threadId: string, text: string, files: Parameters<typeof messageCreated>[0]['files'] = []) => messageCreated({ threadId, text, files });

describe('deliver, to Telegram', () => {
  it('sends a long reply as messages of at most 4096 characters; delivered again (attempt 2) it sends nothing more', async () => {
    const { tg, instance, ann, thread } = await setup();
    const first = 'a'.repeat(3_000);
    const second = 'b'.repeat(2_000);
    const event = reply(thread.threadId, `${first}\n\n${second}`);
    const result = await instance.deliver(event, thread, once());
    expect(tg.sentTo(ann.id).map((m) => m.text)).toEqual([first, second]);
    expect(result).toEqual({ externalId: tg.sentTo(ann.id).map((m) => m.message_id).join(',') });
    expect(await instance.deliver(event, thread, once(2))).toEqual(result);
    expect(tg.sentTo(ann.id)).toHaveLength(2);
    expect(tg.calls('sendMessage')).toHaveLength(2);
  });

  it('a retry after a failed part resumes after the parts Telegram has', async () => {
    const { tg, instance, ann, thread } = await setup();
    const event = reply(thread.threadId, `${'a'.repeat(4_000)}\n${'b'.repeat(4_090)}\n${'c'.repeat(10)}`);
    tg.fail('sendMessage', 502, 'Bad Gateway', { after: 1 });
    await expect(instance.deliver(event, thread, once())).rejects.toBeInstanceOf(TransientDeliveryError);
    expect(tg.sentTo(ann.id).map((m) => m.text![0])).toEqual(['a']);
    await instance.deliver(event, thread, once(2));
    expect(tg.sentTo(ann.id).map((m) => m.text![0])).toEqual(['a', 'b', 'c']);
    expect(tg.calls('sendMessage').map((c) => c.status)).toEqual([200, 502, 200, 200]);
  });

  it('an image goes with sendPhoto, a file with sendDocument; one over the limit or gone at the platform is named under the text', async () => {
    const served = {
      'https://files.platform.example/shot.png': { content: PNG, contentType: 'image/png' },
      'https://files.platform.example/terms.pdf': { content: Buffer.from('%PDF terms'), contentType: 'application/pdf', filename: 'terms.pdf' },
      'https://files.platform.example/huge.zip': { content: Buffer.alloc(3_000), contentType: 'application/zip' },
    };
    const { tg, instance, ann, thread } = await setup({ files: served, extra: { attachments: { max_file_bytes: 2_500 } } });
    const files = [imageAttachment('https://files.platform.example/shot.png'), fileAttachment('terms.pdf'), fileAttachment('huge.zip'), fileAttachment('gone.txt')];
    await instance.deliver(reply(thread.threadId, 'Here you are.', files), thread, once());
    const sent = tg.sentTo(ann.id);
    expect(sent.map((m) => m.kind)).toEqual(['text', 'photo', 'document']);
    expect(sent[0]!.text).toBe(
      'Here you are.\n\n[attachment not sent: huge.zip — over the 2 KB limit per file]\n[attachment not sent: gone.txt — the platform did not hand it out (TG_ATTACHMENT_UNAVAILABLE)]',
    );
    expect(sent[1]!.file!.content.equals(PNG)).toBe(true);
    expect([sent[2]!.file!.filename, sent[2]!.file!.content.toString()]).toEqual(['terms.pdf', '%PDF terms']);
  });

  it('a blocked bot and an unknown chat dead-letter with Telegram’s words; a 429 waits retry_after; a suggestion is skipped', async () => {
    const { tg, ctx, instance, ann, thread } = await setup();
    tg.flood('sendMessage', 2);
    const limited = await instance.deliver(reply(thread.threadId, 'One'), thread, once()).catch((err: unknown) => err);
    expect(limited).toBeInstanceOf(RetryLaterError);
    expect(limited).toMatchObject({ code: 'TG_TELEGRAM_RATE_LIMITED', retryAfterMs: 2_000 });

    tg.blockBot(ann.id);
    const blocked = await instance.deliver(reply(thread.threadId, 'Two'), thread, once()).catch((err: unknown) => err);
    expect(blocked).toBeInstanceOf(PermanentDeliveryError);
    expect(blocked).toMatchObject({ code: 'TG_TELEGRAM_BOT_BLOCKED', message: `Telegram at ${tg.host} answered sendMessage with 403: Forbidden: bot was blocked by the user` });

    const stranger = await ctx.threads.attach('424242', []);
    const unknown = await instance.deliver(reply(stranger.threadId, 'Three'), stranger, once()).catch((err: unknown) => err);
    expect(unknown).toMatchObject({ code: 'TG_TELEGRAM_CHAT_NOT_FOUND', permanent: true, message: expect.stringContaining('Bad Request: chat not found') });
    await expect(instance.deliver(reply('tg:none', 'Four'), undefined, once())).rejects.toMatchObject({ code: 'TG_TELEGRAM_THREAD_UNKNOWN', permanent: true });
    expect(await instance.deliver(replySuggestionCreated({ threadId: thread.threadId }), thread, once())).toEqual({ skipped: expect.stringContaining('Telegram has no drafts') });
    expect(tg.state.sent).toEqual([]);
  });

  it('follows a group that became a supergroup, and remembers it', async () => {
    const { tg, ctx, instance } = await setup({ extra: { allow_groups: true } });
    const group = tg.newGroup('Team');
    const thread = await ctx.threads.attach(String(group.id), []);
    const supergroup = tg.migrateGroup(group.id);
    await instance.deliver(reply(thread.threadId, 'Moved?'), thread, once());
    await instance.deliver(reply(thread.threadId, 'Still here.'), thread, once());
    expect(tg.sentTo(supergroup.id).map((m) => m.text)).toEqual(['Moved?', 'Still here.']);
    expect(tg.calls('sendMessage').map((c) => c.status)).toEqual([400, 200, 200]);
  });

  it('a refused token is retried (not dead-lettered), makes health say so, and is in no error or log line', async () => {
    const counterpart = await startCounterpart();
    const wrong = `${counterpart.bot.id}:${'W'.repeat(35)}`;
    const { instance, thread, ctx } = await setupWith(counterpart, wrong);
    const err = (await instance.deliver(reply(thread.threadId, 'Hi'), thread, once()).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TransientDeliveryError);
    expect(err).toMatchObject({ code: 'TG_TELEGRAM_UNAUTHORIZED', message: expect.stringContaining('answered sendMessage with 401: Unauthorized') });
    expect(err.message).not.toContain(wrong);
    expect(await instance.health!()).toMatchObject({ ok: false, details: { error: expect.stringContaining('TG_TELEGRAM_UNAUTHORIZED'), api: counterpart.host } });
    expect(JSON.stringify(await instance.health!())).not.toContain(wrong);
    expect(ctx.rawLog()).not.toContain(wrong);
  });
});

describe('the record of what was sent', () => {
  it('keeps a reply’s record 30 days, pruning older ones oldest first at most once an hour', async () => {
    const ctx = recordingContext({ name: 'tg' });
    let now = Date.parse('2026-11-29T12:00:00Z');
    const ledger = new ReplyLedger(ctx.state, () => now);
    const record = { notes: [], files: [], sent: [1] };
    await ledger.save('reply:2026-10-01T00:00:00.000Z:a', record);
    await ledger.save('reply:2026-10-30T11:00:00.000Z:b', record);
    await ledger.save('reply:2026-11-28T00:00:00.000Z:c', record);
    await ctx.state.set('offset', 5);
    expect(await ledger.prune()).toBe(2);
    expect(await ctx.state.keys('')).toEqual(['offset', 'reply:2026-11-28T00:00:00.000Z:c']);
    // Within the hour nothing is looked at, even what has grown old meanwhile.
    now += 10 * 60_000;
    await ledger.save('reply:2026-09-01T00:00:00.000Z:d', record);
    expect(await ledger.prune()).toBe(0);
    now += 30 * 24 * 3_600_000;
    expect(await ledger.prune()).toBe(2);
    expect(await ledger.get('reply:2026-11-28T00:00:00.000Z:c')).toBeUndefined();
  });
});

async function setupWith(tg: TestTelegram, token: string): Promise<{ instance: ConnectorInstance; ctx: RecordingContext; thread: Awaited<ReturnType<RecordingContext['threads']['attach']>> }> {
  const ctx = recordingContext({ name: 'tg' });
  const instance = await telegram.create(telegram.configSchema.parse({ ...settingsFor(tg), bot_token: token }), ctx);
  const ann = tg.newCustomer();
  return { instance, ctx, thread: await ctx.threads.attach(String(ann.id), []) };
}
