/**
 * A restart posts nothing twice: a gateway stopped and started again on the
 * same store (its SQLite file, or its PostgreSQL database) takes the
 * notifications Meta sends again as duplicates, the platform's webhook of an
 * agent's reply sent before as a duplicate too, and carries on with what is
 * new — the callback URL verified again at its new address.
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src/platform/signature.ts';
import { chatTexts } from '../../support/gateway.ts';
import { agentSays, ANN, chatOf, CONNECTOR, customerTexts, settled, waGateway, whatsapp } from './support.ts';

describe('WhatsApp connector across a restart', () => {
  it('Meta’s notifications and the platform’s webhook sent again after a restart post and send nothing twice', { timeout: 30_000 }, async () => {
    const wa = await whatsapp({ statusFlow: [] });
    const first = await waGateway(wa);
    const said = await wa.customerSays(ANN, 'First message');
    const image = await wa.customerSendsImage(ANN, { contentType: 'image/png', content: Buffer.from('\x89PNG\r\n\x1a\nnot really'), caption: 'A photo' });
    await customerTexts(first, ANN, 2);
    await agentSays(first, ANN, 'Got both.');
    const [delivery] = await settled(first, 1);
    const stored = (await first.gateway.store.read.deliveries.byId(delivery!.id))!;
    await first.gateway.close();

    const second = await waGateway(wa, { after: first });
    for (const notification of [said.pushed, image.pushed]) {
      const again = await wa.resend(notification);
      expect([again.status, JSON.parse(again.answer)]).toEqual([200, { submitted: 0, duplicate: 1, skipped: 0, receipts: 0, other_numbers: 0 }]);
    }
    const secret = (await second.gateway.store.read.registrations.get(CONNECTOR))!.secret;
    expect((await second.call('POST', `/webhooks/${CONNECTOR}`, stored.body, signedHeaders(secret, stored.body))).body).toMatchObject({ duplicate: true });

    await wa.customerSays(ANN, 'After the restart');
    const texts = await customerTexts(second, ANN, 3);
    expect(texts.map((t) => t.split('\n')[0])).toEqual(['First message', 'A photo', 'After the restart']);
    expect(await chatTexts(second, await chatOf(second, ANN))).toHaveLength(3);
    expect(wa.sentTo(ANN).map((m) => m.body)).toEqual(['Got both.']);
    // The image of the notification sent again was downloaded again (the message is known only at its submit), and kept once.
    expect(wa.mediaDownloads).toEqual([image.mediaId, image.mediaId]);
    expect(await second.gateway.store.read.sql.get(`select count(*) as n from files`)).toEqual({ n: 1 });
  });
});
