/**
 * What each Telegram update becomes (connectors/telegram/inbound-update.ts,
 * inbound-files.ts), read from the counterpart's getUpdates and handled
 * into a recording context: a private text is a message of its chat's
 * thread from its sender; a document or photo (its largest size) is fetched
 * with getFile, kept and linked under the caption; files over the limits or
 * refused by Telegram are named, never dropped; edits, /start, stickers,
 * other bots and groups (unless allowed) are skipped with stable codes;
 * other kinds are ignored; a file Telegram cannot hand out now fails the
 * update (tried again), and nothing is submitted.
 */
import { describe, expect, it } from 'vitest';
import { BotApi } from '../../../connectors/telegram/bot-api.ts';
import { TelegramAttachmentSettings } from '../../../connectors/telegram/config.ts';
import { TelegramUnavailableError } from '../../../connectors/telegram/errors.ts';
import { UpdateHandler } from '../../../connectors/telegram/inbound-update.ts';
import { UpdateList } from '../../../connectors/telegram/telegram-types.ts';
import { recordingContext } from '../../../src/connector/testing/index.ts';
import { telegram } from './support.ts';

const LINK = / (https:\/\/gw\.example\.test\/files\/\S+)$/;

async function setup(options: { allowGroups?: boolean; attachments?: Record<string, unknown>; maxDownloadBytes?: number } = {}) {
  const tg = await telegram(options.maxDownloadBytes === undefined ? {} : { maxDownloadBytes: options.maxDownloadBytes });
  const api = new BotApi({ apiUrl: tg.url, token: tg.token, timeoutMs: 5_000 });
  const ctx = recordingContext({ name: 'tg' });
  const handler = new UpdateHandler(ctx, api, { allowGroups: options.allowGroups ?? false, attachments: TelegramAttachmentSettings.parse(options.attachments ?? {}) });
  let offset: number | undefined;
  /** Handles every update waiting at the counterpart; answers what each became. */
  const handleAll = async () => {
    const updates = await api.call('getUpdates', { offset }, UpdateList, AbortSignal.timeout(5_000));
    const outcomes: string[] = [];
    for (const update of updates) {
      outcomes.push(await handler.handle(update, AbortSignal.timeout(5_000)));
      offset = update.update_id + 1;
    }
    return outcomes;
  };
  return { tg, api, ctx, handler, handleAll };
}

const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(3_000, 7)]);

describe('a Telegram update, inbound', () => {
  it('a private text: the chat is the thread, the user the sender, with their name and username as variables', async () => {
    const { tg, ctx, handleAll } = await setup();
    const ann = tg.newCustomer({ first_name: 'Ann', last_name: 'Lee', username: 'annlee' });
    const id = tg.customerSays(ann.id, 'Where is my order?');
    expect(await handleAll()).toEqual(['submitted']);
    expect(ctx.submits).toEqual([
      {
        threadKey: String(ann.id),
        messageId: `${ann.id}:${id}`,
        senderId: `telegram:${ann.id}`,
        senderName: 'Ann Lee',
        body: 'Where is my order?',
        variables: { telegram_user_id: String(ann.id), telegram_username: 'annlee' },
      },
    ]);
  });

  it('a document with a caption: kept and linked under the caption; a photo: its largest size', async () => {
    const { tg, ctx, handleAll } = await setup();
    const ann = tg.newCustomer();
    tg.customerSendsDocument(ann.id, { filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf, caption: 'The invoice' });
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(4_000, 1)]);
    const photoId = tg.customerSendsPhoto(ann.id, { content: photo });
    expect(await handleAll()).toEqual(['submitted', 'submitted']);
    const [doc, pic] = ctx.submits.map((s) => s.body);
    expect(doc!.replace(LINK, ' <link>')).toBe('The invoice\n\n[attachment: invoice.pdf, 3 KB] <link>');
    expect(pic!.replace(LINK, ' <link>')).toBe(`[attachment: photo-${photoId}.jpg, 4 KB] <link>`);
    expect(ctx.puts.map((p) => [p.filename, p.contentType, p.content.length])).toEqual([['invoice.pdf', 'application/pdf', pdf.length], [`photo-${photoId}.jpg`, 'image/jpeg', photo.length]]);
    expect(ctx.puts[0]!.content.equals(pdf)).toBe(true);
    expect(ctx.puts[1]!.content.equals(photo)).toBe(true);
  });

  it('names a file over the limit, one Telegram will not hand out, and every file with keep: false — never dropping one', async () => {
    const limited = await setup({ attachments: { max_file_bytes: 1_000 }, maxDownloadBytes: 2_000 });
    const ann = limited.tg.newCustomer();
    limited.tg.customerSendsDocument(ann.id, { filename: 'big.pdf', contentType: 'application/pdf', content: pdf });
    expect(await limited.handleAll()).toEqual(['submitted']);
    expect(limited.ctx.submits[0]!.body).toBe('[attachment: big.pdf, 3 KB — not kept: over the 1000 B limit per file]');
    expect(limited.tg.calls('getFile')).toEqual([]);

    const capped = await setup({ maxDownloadBytes: 2_000 });
    const bob = capped.tg.newCustomer();
    capped.tg.customerSendsDocument(bob.id, { filename: 'scan.pdf', contentType: 'application/pdf', content: pdf, caption: 'Scan' });
    await capped.handleAll();
    expect(capped.ctx.submits[0]!.body).toBe('Scan\n\n[attachment: scan.pdf, 3 KB — not kept: Telegram did not hand it out (Bad Request: file is too big)]');

    const named = await setup({ attachments: { keep: false } });
    const cid = named.tg.newCustomer();
    named.tg.customerSendsDocument(cid.id, { filename: 'notes.txt', contentType: 'text/plain', content: Buffer.from('hello') });
    await named.handleAll();
    expect(named.ctx.submits[0]!.body).toBe('[attachment: notes.txt, 5 B]');
    expect([named.ctx.puts, named.tg.calls('getFile')]).toEqual([[], []]);
  });

  it('skips, with stable codes and without the text: an edit, /start, a sticker, a group message (allow_groups: false)', async () => {
    const { tg, ctx, handleAll } = await setup();
    const ann = tg.newCustomer({ first_name: 'Ann' });
    tg.customerSays(ann.id, '/start');
    const id = tg.customerSays(ann.id, 'Hello');
    tg.customerEdits(ann.id, id, 'Hello again');
    tg.customerSends(ann.id, { sticker: { file_id: 'x', file_unique_id: 'y', width: 512, height: 512, is_animated: false, is_video: false, type: 'regular', emoji: '👍' } });
    const group = tg.newGroup('Team chat');
    tg.customerSays(group.id, 'hi all', ann);
    expect(await handleAll()).toEqual(['skipped', 'submitted', 'skipped', 'skipped', 'skipped']);
    expect(ctx.submits.map((s) => s.body)).toEqual(['Hello']);
    expect(ctx.skips.map((s) => [s.code, s.reason])).toEqual([
      ['TG_TELEGRAM_START_COMMAND', 'the /start Telegram sends when a user opens the bot'],
      ['TG_TELEGRAM_EDITED_MESSAGE', `message ${id} was edited in Telegram; the platform keeps the message as first sent`],
      ['TG_TELEGRAM_UNSUPPORTED_MESSAGE', 'a sticker message: only text, photos and files are posted'],
      ['TG_TELEGRAM_GROUP_CHAT', 'a message in the group “Team chat”: group chats are not posted (allow_groups: false)'],
    ]);
    expect(JSON.stringify(ctx.skips)).not.toContain('Hello again');
    expect(ctx.skips.every((s) => s.senderId === `telegram:${ann.id}`)).toBe(true);
  });

  it('with allow_groups, a group is one thread whose members are its senders; other bots are skipped', async () => {
    const { tg, ctx, handleAll } = await setup({ allowGroups: true });
    const [ann, bob] = [tg.newCustomer({ first_name: 'Ann' }), tg.newCustomer({ first_name: 'Bob' })];
    const group = tg.newGroup('Team chat', 'supergroup');
    tg.customerSays(group.id, 'from Ann', ann);
    tg.customerSays(group.id, 'from Bob', bob);
    tg.customerSays(group.id, 'beep', { id: 999, is_bot: true, first_name: 'Other', username: 'other_bot' });
    expect(await handleAll()).toEqual(['submitted', 'submitted', 'skipped']);
    expect(ctx.submits.map((s) => [s.threadKey, s.senderId, s.body])).toEqual([
      [String(group.id), `telegram:${ann.id}`, 'from Ann'],
      [String(group.id), `telegram:${bob.id}`, 'from Bob'],
    ]);
    expect(ctx.skips.map((s) => s.code)).toEqual(['TG_TELEGRAM_FROM_BOT']);
  });

  it('ignores kinds it does not read, refuses what is no update, and fails (submitting nothing) when a file cannot be had now', async () => {
    const { tg, ctx, handler, handleAll } = await setup();
    const ann = tg.newCustomer();
    expect(await handler.handle({ update_id: 5, channel_post: { message_id: 1 } }, AbortSignal.timeout(1_000))).toBe('ignored');
    expect(await handler.handle({ update_id: 6, my_chat_member: {} }, AbortSignal.timeout(1_000))).toBe('ignored');
    await expect(handler.handle({ message: { text: 'x' } }, AbortSignal.timeout(1_000))).rejects.toThrow(/not a Telegram update: update_id/);
    tg.customerSendsDocument(ann.id, { filename: 'a.pdf', contentType: 'application/pdf', content: pdf });
    tg.fail('getFile', 502, 'Bad Gateway');
    await expect(handleAll()).rejects.toThrow(TelegramUnavailableError);
    expect(ctx.submits).toEqual([]);
    expect(await handleAll()).toEqual(['submitted']);
  });
});

