/**
 * The admin page's bulk retries in a real browser: "Retry all dead jobs…"
 * counts the dead jobs with a dry run, asks, and queues them all again;
 * "Retry dead…" in the inbound panel does the same with the panel's filter,
 * and shows the API's refusal of a bad one.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startAdminGateway } from '../support/admin-gateway.ts';
import { noStack, poll, signedInAdminPage } from '../support/browser.ts';

describe('admin page: bulk retry', () => {
  // Guards against a page that can retry dead jobs only one row at a time.
  it('retries every dead job after a confirmation that names the count, and applies the inbound filter to its retry', async () => {
    // `flaky` fails its first hand-over: with one try allowed that job dies, and a retry delivers it; `refuser` refuses for good.
    const tg = await startAdminGateway({ extra: [{ name: 'flaky', fail_deliveries: 1 }], settings: { jobs: { max_attempts: 1 } } });
    const { page, problems } = await signedInAdminPage(tg.gateway.url, ADMIN_TOKEN);
    await poll(() => page.locator('#job-list tbody tr').count()).toBe(2);

    // Cancelling the confirmation queues nothing.
    await page.click('#jobs-retry-dead');
    await page.locator('#confirm').waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').innerText()).toBe('Retry 2 dead jobs? Each runs again from a fresh attempt count and retry deadline.');
    await page.click('#confirm-cancel');
    expect((await tg.gateway.bridge.queue.countByStatus()).dead).toBe(2);

    await page.click('#jobs-retry-dead');
    await page.click('#confirm-ok');
    await poll(() => page.locator('#notice').innerText()).toBe('2 dead jobs queued again.');
    // flaky's reply is delivered this time; refuser refuses again and is the one dead job left.
    await poll(async () => (await tg.gateway.store.read.deliveries.countByStatus('flaky')).delivered ?? 0).toBe(1);
    await page.click('#refresh');
    await poll(() => page.locator('#job-list tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/connector\.deliver\s+1\/1\s+TG_DELIVERY_PERMANENT/)]);

    // The inbound panel's filter goes with its retry: a bad one is the API's 400, a good one that matches nothing says so.
    await page.fill('#inbound-filter input[name=since]', 'last tuesday');
    await page.click('#inbound-retry-dead');
    await page.locator('#error').waitFor({ state: 'visible' });
    expect(await page.locator('#error').innerText()).toContain('TG_REQUEST_INVALID: body.since: must be a duration ago (2h, 30m, 7d) or an ISO time, got "last tuesday"');
    await page.fill('#inbound-filter input[name=since]', '1h');
    await page.click('#inbound-retry-dead');
    await poll(() => page.locator('#notice').innerText()).toBe('No dead inbound messages match.');
    await noStack(page);
    expect(problems).toEqual([]);
  });
});
