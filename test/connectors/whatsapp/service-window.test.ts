/**
 * Outside the customer's 24-hour customer service window WhatsApp refuses a
 * free-form reply (131047 Re-engagement message). Without a template the
 * delivery is dead-lettered at once with WhatsApp's reason; with `template`
 * configured the template goes out instead — once, until the customer writes
 * again — and the delivery is skipped saying so, its external id the
 * template's (so its receipts show). Once the customer writes again, replies
 * go out as text.
 */
import { describe, expect, it } from 'vitest';
import { agentSays, ANN, customerTexts, settled, waGateway, whatsapp } from './support.ts';

const TEMPLATE = { name: 'reopen_conversation', language: 'en_US' };

describe('WhatsApp’s 24-hour window', () => {
  it('without a template, a reply outside the window is dead-lettered with 131047’s reason and nothing is sent', async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa);
    await wa.customerSays(ANN, 'Hello');
    await customerTexts(tg, ANN, 1);
    wa.advanceWindow(ANN, 25);
    await agentSays(tg, ANN, 'Sorry for the late answer.');
    const [delivery] = await settled(tg, 1, ['dead']);
    expect(delivery!.error).toMatch(/^TG_WHATSAPP_WINDOW_CLOSED: WhatsApp answered 400 to sending a text message: \(#131047\) Re-engagement message — Message failed to send because more than 24 hours have passed/);
    expect(wa.sentTo(ANN)).toEqual([]);
    expect(wa.requests.filter((r) => r.code === 131047)).toHaveLength(1); // dead at once, not retried
  });

  it('with a template, it is sent instead, once until the customer writes again; then replies go out as text', { timeout: 30_000 }, async () => {
    const wa = await whatsapp();
    const tg = await waGateway(wa, { extra: { template: TEMPLATE } });
    await wa.customerSays(ANN, 'Hello');
    await customerTexts(tg, ANN, 1);
    wa.advanceWindow(ANN, 30);

    await agentSays(tg, ANN, 'Your refund is done.');
    const [first] = await settled(tg, 1, ['skipped']);
    expect(wa.sentTo(ANN).map((m) => [m.type, m.template])).toEqual([['template', TEMPLATE]]);
    expect(first!.error).toBe(
      `outside WhatsApp's 24-hour customer service window (131047 Re-engagement message): the reply was not sent; the template "reopen_conversation" (en_US) was sent instead`,
    );
    expect(first!.external_id).toBe(wa.sentTo(ANN)[0]!.wamid);

    // A second reply while the template is unanswered sends nothing more.
    await agentSays(tg, ANN, 'Also, the voucher.');
    const [, second] = await settled(tg, 2, ['skipped']);
    expect(second!.error).toMatch(/the template "reopen_conversation" sent at \S+ is still unanswered, so it was not sent again$/);
    expect(wa.sentTo(ANN)).toHaveLength(1);

    // The customer answers the template: the window is open again.
    await wa.customerSays(ANN, 'Yes?');
    await customerTexts(tg, ANN, 2);
    await agentSays(tg, ANN, 'Your refund is done.');
    const all = await settled(tg, 3);
    expect(all[2]).toMatchObject({ status: 'delivered', error: null });
    expect(wa.sentTo(ANN).map((m) => m.type)).toEqual(['template', 'text']);
  });
});
