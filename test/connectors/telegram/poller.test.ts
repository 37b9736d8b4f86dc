/**
 * The poller (connectors/telegram/update-poller.ts, stuck-updates.ts)
 * against the counterpart, into a recording context: the offset is written
 * only after what the updates became is stored, and never past an update
 * that could not be handled; one that fails for a reason of its own is
 * given up on its third try (recorded as TG_TELEGRAM_UPDATE_UNHANDLED) and
 * the chat goes on; a refused bot token is a clear error in the log and in
 * health, without the token; the poll ends promptly when its signal aborts,
 * its long poll with it.
 */
import { describe, expect, it } from 'vitest';
import telegram from '../../../connectors/telegram/index.ts';
import { BotApi } from '../../../connectors/telegram/bot-api.ts';
import { BotStatus } from '../../../connectors/telegram/bot-status.ts';
import { TelegramAttachmentSettings } from '../../../connectors/telegram/config.ts';
import { UpdateHandler } from '../../../connectors/telegram/inbound-update.ts';
import { StuckUpdates } from '../../../connectors/telegram/stuck-updates.ts';
import { OFFSET_KEY, pollOnce, type PollerDeps } from '../../../connectors/telegram/update-poller.ts';
import { TelegramRateLimitedError, TelegramUnauthorizedError, TelegramUnavailableError } from '../../../connectors/telegram/errors.ts';
import { retryDelayMs } from '../../../connectors/telegram/retry-wait.ts';
import { LEVEL, recordingContext } from '../../../src/connector/testing/index.ts';
import { until } from '../../support/wait.ts';
import { settingsFor, telegram as counterpart } from './support.ts';

async function setup() {
  const tg = await counterpart();
  const ctx = recordingContext({ name: 'tg' });
  const api = new BotApi({ apiUrl: tg.url, token: tg.token, timeoutMs: 5_000 });
  const status = new BotStatus({ mode: 'polling', apiHost: api.host });
  const deps: PollerDeps = {
    api,
    handler: new UpdateHandler(ctx, api, { allowGroups: false, attachments: TelegramAttachmentSettings.parse({}) }),
    stuck: new StuckUpdates((record) => ctx.skip(record), ctx.logger),
    status,
    logger: ctx.logger,
    timeoutSeconds: 0,
  };
  const round = () => pollOnce(deps, ctx.state, AbortSignal.timeout(5_000));
  return { tg, ctx, deps, round, offset: () => ctx.state.get<number>(OFFSET_KEY) };
}

describe('the Telegram poller', () => {
  it('writes the offset after the batch is stored, and stops at an update that cannot be handled now', async () => {
    const { tg, ctx, round, offset } = await setup();
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'one');
    tg.customerSendsDocument(ann.id, { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('file') });
    tg.customerSays(ann.id, 'three');
    tg.fail('getFile', 500, 'Internal Server Error');
    await expect(round()).rejects.toMatchObject({ code: 'TG_TELEGRAM_UNAVAILABLE' });
    expect(ctx.submits.map((s) => s.body)).toEqual(['one']);
    const first = tg.calls('getUpdates')[0]!;
    const oneId = await offset();
    expect(oneId).toEqual(expect.any(Number));
    // The offset points at the document's update: the next round reads it again, and the rest.
    expect(await round()).toBe(2);
    expect(tg.calls('getUpdates')[1]!.params.offset).toBe(String(oneId));
    expect(ctx.submits.map((s) => s.body.split('\n')[0])).toEqual(['one', '[attachment: a.txt, 4 B] https://gw.example.test/files/file-1?e=0&s=recorded', 'three']);
    expect(await offset()).toBe((oneId as number) + 2);
    expect(first.params.offset).toBeUndefined();
  });

  it('gives up an update failing for a reason of its own on its third try, and goes on', async () => {
    const { tg, ctx, round, offset } = await setup();
    const ann = tg.newCustomer();
    tg.customerSends(ann.id, { text: 42 });
    tg.customerSays(ann.id, 'after the bad one');
    await expect(round()).rejects.toThrow(/not a Telegram update: message\.text/);
    await expect(round()).rejects.toThrow(TypeError);
    expect(await offset()).toBeUndefined();
    expect(await round()).toBe(2);
    expect(ctx.skips).toEqual([expect.objectContaining({ code: 'TG_TELEGRAM_UPDATE_UNHANDLED', reason: expect.stringMatching(/^given up after 3 failures: not a Telegram update: message\.text/) })]);
    expect(ctx.submits.map((s) => s.body)).toEqual(['after the bad one']);
    expect(ctx.logs.some((l) => l.level === LEVEL.error && /given up/.test(l.msg))).toBe(true);
  });

  it('a refused token: an error line and health say so (TG_TELEGRAM_UNAUTHORIZED), never the token; the poll ends on its signal', { timeout: 20_000 }, async () => {
    const tg = await counterpart();
    const wrong = `${tg.bot.id}:${'Z'.repeat(35)}`;
    const ctx = recordingContext({ name: 'tg' });
    const instance = await telegram.create(telegram.configSchema.parse({ ...settingsFor(tg), bot_token: wrong }), ctx);
    const abort = new AbortController();
    const polling = instance.poll!({ signal: abort.signal, state: ctx.state });
    await until(() => ctx.logs.some((l) => l.level === LEVEL.error), 5_000, 'an error line');
    const line = ctx.logs.find((l) => l.level === LEVEL.error)!;
    expect(line).toMatchObject({ code: 'TG_TELEGRAM_UNAUTHORIZED', msg: expect.stringContaining(`Telegram at ${tg.host} answered getMe with 401: Unauthorized`) });
    expect(await instance.health!()).toMatchObject({ ok: false, details: { mode: 'polling', bot: null, last_error_code: 'TG_TELEGRAM_UNAUTHORIZED' } });
    const started = Date.now();
    abort.abort();
    await polling;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(ctx.rawLog()).not.toContain(wrong);
    expect(JSON.stringify(await instance.health!())).not.toContain(wrong);
  });

  it('polls with getMe, deleteWebhook and long polls; health names the bot and the offset; stop ends the long poll at once', { timeout: 20_000 }, async () => {
    const tg = await counterpart();
    const ctx = recordingContext({ name: 'tg' });
    const instance = await telegram.create(telegram.configSchema.parse({ ...settingsFor(tg), poll_timeout_seconds: 30 }), ctx);
    const abort = new AbortController();
    const polling = instance.poll!({ signal: abort.signal, state: ctx.state });
    const ann = tg.newCustomer();
    tg.customerSays(ann.id, 'Hi');
    await until(() => ctx.submits.length === 1 && tg.calls('getUpdates').some((c) => c.status === 0 && c.params.offset !== undefined), 5_000, 'the message and the next long poll');
    expect(tg.requests.slice(0, 2).map((r) => r.method)).toEqual(['getMe', 'deleteWebhook']);
    expect(tg.calls('getUpdates').at(-1)!.params).toMatchObject({ timeout: '30', allowed_updates: '["message","edited_message"]' });
    expect(await instance.health!()).toMatchObject({ ok: true, details: { bot: '@threadgate_test_bot', api: tg.host, offset: expect.any(Number), updates: 1, last_error: null } });
    const started = Date.now();
    abort.abort();
    await polling;
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits after a failure: a 429 exactly its retry_after, a refused token up to five minutes, anything else 1 s doubling to a minute, jittered', () => {
    const answer = { method: 'getUpdates', status: 0, description: '' };
    expect(retryDelayMs(new TelegramRateLimitedError('429', 7_000, answer), 9, () => 0)).toBe(7_000);
    const other = new TelegramUnavailableError('502', answer);
    expect([1, 2, 3, 7, 30].map((n) => retryDelayMs(other, n, () => 1))).toEqual([1_000, 2_000, 4_000, 60_000, 60_000]);
    expect(retryDelayMs(other, 1, () => 0)).toBe(500);
    expect(retryDelayMs(new TelegramUnauthorizedError('401', answer), 30, () => 1)).toBe(300_000);
  });
});
