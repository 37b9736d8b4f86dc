/**
 * The admin page in a real browser (Debian's Chromium, driven by
 * playwright-core; scripts/install-test-browser installs it): sign in with
 * the token, see an API refusal shown as its JSON message, filter the
 * deliveries to failed/dead, open one, replay it through the confirmation
 * dialog and watch its status and attempts change. A screenshot is kept
 * under test/artifacts/. Guards against: a page that breaks under its own
 * Content-Security-Policy, and stack traces reaching the screen.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startAdminGateway } from '../support/admin-gateway.ts';
import { noStack, openBrowser, pageProblems, poll } from '../support/browser.ts';

const ARTIFACTS = join(import.meta.dirname, '../artifacts');

describe('admin page', () => {
  it('signs in, filters to failed/dead deliveries, replays one after confirming and shows its status and attempts change', async () => {
    // `flaky` fails its first hand-over; with one attempt allowed that delivery is dead, and a replay delivers it.
    const tg = await startAdminGateway({ extra: [{ name: 'flaky', fail_deliveries: 1 }], settings: { jobs: { max_attempts: 1 } } });
    const page = await openBrowser();
    const problems = pageProblems(page);

    await page.goto(`${tg.gateway.url}/admin`);
    await poll(() => page.locator('#login').isVisible()).toBe(true);

    // A wrong token: the API's 401 message, and still the sign-in form.
    await page.fill('#token', 'not-the-admin-token-at-all');
    await page.click('#login-form button[type=submit]');
    await page.locator('#error').waitFor({ state: 'visible' });
    expect(await page.locator('#error').innerText()).toBe('TG_ADMIN_UNAUTHORIZED: the admin token is not valid');
    expect(await page.locator('#app').isHidden()).toBe(true);

    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    await poll(() => page.locator('#connectors tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/^desk\s+ok/),
      expect.stringMatching(/^refuser\s+ok/),
      expect.stringMatching(/^flaky\s+ok/),
    ]);
    expect(await page.locator('#platform-state').innerText()).toMatch(/^platform up token ok last answer \d{3} at /);
    expect(await page.locator('#problems').isHidden()).toBe(true);
    expect(await page.locator('#counts').innerText()).toMatch(/deliveries[\s\S]*dead\s+2/);
    expect(await page.evaluate(() => sessionStorage.getItem('threadgate.adminToken'))).toBe(ADMIN_TOKEN);

    // A bad filter: the API's 400 shown as its JSON message naming the field.
    await page.fill('#delivery-filter input[name=since]', 'last tuesday');
    await page.click('#delivery-filter button[type=submit]');
    await page.locator('#error').waitFor({ state: 'visible' });
    expect(await page.locator('#error').innerText()).toContain('TG_REQUEST_INVALID: query.since: must be a duration ago (2h, 30m, 7d) or an ISO time, got "last tuesday"');
    await noStack(page);

    // Failed and dead deliveries of the last hour.
    await page.fill('#delivery-filter input[name=since]', '1h');
    await page.check('#delivery-status input[value=failed]');
    await page.check('#delivery-status input[value=dead]');
    await page.click('#delivery-filter button[type=submit]');
    await poll(() => page.locator('#delivery-list tbody tr').allInnerTexts()).toEqual([
      expect.stringMatching(/flaky\s+message_created\s+dead\s+1/),
      expect.stringMatching(/refuser\s+message_created\s+dead\s+1/),
    ]);
    expect(await page.locator('#error').isHidden()).toBe(true);

    // Open the flaky one: dead after one attempt, with its headers and body.
    await page.locator('#delivery-list tbody tr', { hasText: 'flaky' }).getByRole('button').click();
    await poll(() => page.locator('#detail h2').innerText()).toMatch(/^Delivery #\d+\s*dead\s*1 attempt$/);
    const detail = await page.locator('#detail').innerText();
    expect(detail).toContain('x-svc-signature');
    expect(detail).toContain('"message": "reply via flaky"');
    expect(detail).toContain('planned failure 1');

    // Replay: a confirmation first; cancelling does nothing, confirming queues it.
    await page.click('#replay');
    await page.locator('#confirm').waitFor({ state: 'visible' });
    expect(await page.locator('#confirm-text').innerText()).toMatch(/^Replay delivery #\d+ \(message_created\) through connector “flaky”\?/);
    await page.click('#confirm-cancel');
    await page.locator('#confirm').waitFor({ state: 'hidden' });
    expect(await page.locator('#notice').isHidden()).toBe(true);
    await page.click('#replay');
    await page.click('#confirm-ok');
    await poll(() => page.locator('#notice').innerText()).toMatch(/^Delivery #\d+ queued again as job \d+\.$/);
    await poll(() => page.locator('#detail h2').innerText()).toMatch(/^Delivery #\d+\s*delivered\s*2 attempts$/);
    const attempts = await page.locator('#detail table').first().locator('tbody tr').allInnerTexts();
    expect(attempts).toEqual([expect.stringMatching(/^1\s+\d+\s+no\s.*dead/), expect.stringMatching(/^1\s+\d+\s+yes\s.*delivered\s+ext-message_created/)]);
    // The list was refreshed with the filter kept: only refuser's dead delivery is left.
    await poll(() => page.locator('#delivery-list tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/refuser\s+message_created\s+dead/)]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'admin-page.png'), fullPage: true });
    await noStack(page);
    expect(problems).toEqual([]);
  });

  it('the live view shows an agent reply’s webhook and its delivery as they happen, under its Content-Security-Policy', async () => {
    const tg = await startAdminGateway();
    const page = await openBrowser();
    const problems = pageProblems(page);
    await page.goto(`${tg.gateway.url}/admin`);
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.locator('#app').waitFor({ state: 'visible' });
    await page.click('#live-toggle');
    await poll(() => page.locator('#live-state').innerText()).toBe('listening');
    await new Promise((r) => setTimeout(r, 300)); // the stream request reaches the gateway

    const chatId = (await tg.gateway.store.read.threads.byKey('desk', 'T1'))!.chatId!;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'a live reply' });
    await poll(() => page.locator('#live-list li').allInnerTexts()).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3}\s+delivery\s+desk\s+message_created\s+delivered\s+desk:T1\s+\d+ ms$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3}\s+webhook\s+desk\s+message_created\s+accepted\s+desk:T1$/),
    ]);
    await page.click('#live-toggle');
    await poll(() => page.locator('#live-state').innerText()).toBe('stopped');
    await noStack(page);
    expect(problems).toEqual([]);
  });
});
