/**
 * What connectors read and did not post is reachable: the admin API lists
 * skips newest first by connector, code and time with an id cursor, and the
 * admin page shows them with their reason. And an inbound message still
 * pending after failed tries shows its last error in the listing.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startAdminGateway } from '../support/admin-gateway.ts';
import { poll, signedInAdminPage } from '../support/browser.ts';
import { startGatewayBehindProxy } from '../support/gateway.ts';
import { until } from '../support/wait.ts';
import { conforms, refused } from './admin-api-support.ts';

const skip = (connector: string, messageId: string, code: string, summary: string) => ({ connector, body: { messageId, code, reason: `because of ${code}`, senderId: 'ann@example.com', summary } });

describe('skipped messages in the admin API and page', () => {
  it('lists skips newest first, filtered by connector and code, page by page; a bad filter is refused naming it', async () => {
    const tg = await startAdminGateway();
    for (const s of [
      skip('desk', 'a-1', 'TG_EMAIL_AUTO_REPLY', 'Out of office'),
      skip('refuser', 'b-1', 'TG_EMAIL_BULK', 'Newsletter'),
      skip('desk', 'a-2', 'TG_EMAIL_BULK', 'Offers'),
    ]) {
      expect((await tg.call('POST', `/connectors/${s.connector}/skip`, s.body)).body).toEqual({ duplicate: false });
    }
    const all = await tg.admin('GET', '/skipped');
    conforms('listSkipped', all);
    expect(all.body.results.map((r: { external_id: string }) => r.external_id)).toEqual(['a-2', 'b-1', 'a-1']);
    expect(all.body.results[0]).toMatchObject({ connector: 'desk', code: 'TG_EMAIL_BULK', reason: 'because of TG_EMAIL_BULK', summary: 'Offers', sender_id: 'ann@example.com' });

    const bulkAtDesk = await tg.admin('GET', '/skipped?connector=desk&code=TG_EMAIL_BULK');
    expect(bulkAtDesk.body.results.map((r: { external_id: string }) => r.external_id)).toEqual(['a-2']);
    const first = await tg.admin('GET', '/skipped?limit=2');
    expect(first.body.results).toHaveLength(2);
    const rest = await tg.admin('GET', `/skipped?limit=2&before=${first.body.next_before}`);
    expect(rest.body).toMatchObject({ results: [{ external_id: 'a-1' }], next_before: null });
    refused(await tg.admin('GET', '/skipped?since=yesterday-ish'), 400, 'TG_REQUEST_INVALID', 'query.since', /duration ago/);
  });

  it('the admin page shows the skips with code, reason and summary, and filters them by code', async () => {
    const tg = await startAdminGateway();
    for (const s of [skip('desk', 'p-1', 'TG_EMAIL_AUTO_REPLY', 'Out of office'), skip('desk', 'p-2', 'TG_EMAIL_LOOP', 'Re: Re: Re:')]) {
      await tg.call('POST', `/connectors/${s.connector}/skip`, s.body);
    }
    const { page, problems } = await signedInAdminPage(tg.gateway.url, ADMIN_TOKEN);
    await poll(() => page.locator('#skipped-list tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^#\d+\s+\S.*\s+desk\s+TG_EMAIL_LOOP\s+because of TG_EMAIL_LOOP\s+Re: Re: Re:\s+ann@example\.com$/),
      expect.stringMatching(/^#\d+\s+\S.*\s+desk\s+TG_EMAIL_AUTO_REPLY\s+because of TG_EMAIL_AUTO_REPLY\s+Out of office\s+ann@example\.com$/),
    ]);
    await page.fill('#skipped-filter input[name=code]', 'TG_EMAIL_AUTO_REPLY');
    await page.click('#skipped-filter button[type=submit]');
    await poll(() => page.locator('#skipped-list tbody tr').count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('an inbound message still pending after failed tries shows its last error', async () => {
    const tg = await startGatewayBehindProxy({ server: { admin_token: ADMIN_TOKEN } });
    await until(async () => (await tg.gateway.store.read.registrations.get('desk')) !== undefined, 10_000, 'the registration');
    tg.proxy.mode = '503';
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T-wait', messageId: 'w-1', senderId: 'ann@example.com', body: 'hello?' });
    await until(async () => (await tg.gateway.store.read.attempts.ofInbound(1)).length >= 1, 10_000, 'a failed try');
    const list = await tg.call('GET', '/admin/api/inbound', undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(list.body.results[0]).toMatchObject({ status: 'pending', last_error: expect.stringContaining('503') });
  });
});
