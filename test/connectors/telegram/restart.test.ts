/**
 * A restart posts nothing twice: a gateway polls two messages and delivers
 * an agent's reply, stops; a third message comes while it is down; another
 * gateway on the same store file (and the sandbox's kept state) resumes
 * getUpdates from the offset the first kept, posts only the third message,
 * and sends the reply to nobody again. No log line of either holds the bot
 * token.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { ARRIVES_MS, arrived, CONNECTOR, gatewayFor, health, telegram, visitorTexts } from './support.ts';

describe('Telegram connector, a restart', () => {
  it('resumes from the kept offset: nothing is posted twice, no reply sent again', { timeout: 90_000 }, async () => {
    const tg = await telegram();
    const dir = tempDir('threadgate-telegram-');
    const logs: string[] = [];
    const ann = tg.newCustomer();
    const first = await gatewayFor(tg, { dir, logs });
    tg.customerSays(ann.id, 'One');
    tg.customerSays(ann.id, 'Two');
    expect(await arrived(first, ann.id, 2)).toEqual(['One', 'Two']);
    await first.agentReply(CONNECTOR, String(ann.id), 'Got both.');
    await first.waitForDelivery(CONNECTOR, { timeoutMs: ARRIVES_MS });
    await until(async () => (await health(first)).details.offset !== null, ARRIVES_MS, 'the offset past the two messages');
    const offset = (await health(first)).details.offset as number;
    await first.stop();

    tg.customerSays(ann.id, 'Three, while you were away');
    const before = tg.calls('getUpdates').length;
    const second = await gatewayFor(tg, { dir, logs });
    expect(await arrived(second, ann.id, 3)).toEqual(['One', 'Two', 'Three, while you were away']);
    expect(tg.calls('getUpdates')[before]!.params.offset).toBe(String(offset));
    // The offset moved past the third message, and the next long poll asks from there: nothing more is read.
    await until(async () => ((await health(second)).details.offset as number) > offset, ARRIVES_MS, 'the offset past the third message');
    const next = String((await health(second)).details.offset);
    await until(() => tg.calls('getUpdates').some((c) => c.params.offset === next), ARRIVES_MS, 'the next long poll');
    expect(await visitorTexts(second, ann.id)).toEqual(['One', 'Two', 'Three, while you were away']);
    expect(tg.sentTo(ann.id).map((m) => m.text)).toEqual(['Got both.']);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.filter((line) => line.includes(tg.token))).toEqual([]);
  });
});
