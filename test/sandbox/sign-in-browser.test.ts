/**
 * Sign-in in a real browser (Debian's Chromium, driven by playwright-core):
 * a small app on its own port completes the implicit flow through the
 * sandbox's login page, then renews silently in a hidden frame with
 * prompt=none and the sandbox's /callback page, which posts
 * `svc-auth-callback:` + the hash to the parent; a pop-up's /callback page
 * posts to its opener the same way. After the sandbox signs
 * everybody out, the same silent renewal answers login_required. Guards
 * against: a callback page blocked by its own Content-Security-Policy, a
 * session cookie the hidden frame does not send, and messages posted to
 * another origin than the app's.
 */
import { randomUUID } from 'node:crypto';
import { chromium, type Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { startBrowserApp } from './sign-in-browser-app.ts';
import { registerApp } from './sign-in-support.ts';
import { startTestSandbox } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
/** How long one browser step may take. */
const STEP_MS = 10_000;

async function openBrowser(): Promise<Page> {
  const context = await chromium.launchPersistentContext(tempDir('threadgate-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  onTestFinished(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_MS);
  return page;
}

interface SignInResult {
  error?: string;
  state_ok: boolean;
  nonce_ok?: boolean;
  sub?: string;
  name?: string;
  access_token?: string;
  token_type?: string;
  expires_in?: string;
}

describe('sandbox sign-in in a browser', () => {
  it('completes the implicit flow through the login page, renews silently through a hidden frame and /callback, and in a pop-up', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const clientId = randomUUID();
    const app = await startBrowserApp(async ({ origin, redirectUri }) => {
      const callback = (target: string) => `${sb.url}/callback?target=${target}&origin=${encodeURIComponent(origin)}&client_id=${clientId}`;
      const [callbackUri, popupCallbackUri] = [callback('parent'), callback('opener')];
      await registerApp(sb, { client_id: clientId, name: 'Browser App', redirect_uris: [redirectUri, callbackUri, popupCallbackUri] });
      return { sandboxUrl: sb.url, clientId, callbackUri, popupCallbackUri };
    });
    const page = await openBrowser();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      // Each 4xx fetched is logged by the browser; the responses are checked below by URL instead.
      if (msg.type() === 'error' && !/^Failed to load resource/.test(msg.text())) problems.push(`console: ${msg.text()}`);
    });
    // Browsers ask every origin for /favicon.ico; neither the app nor the sandbox has one.
    page.on('response', (res) => {
      if (res.status() >= 400 && new URL(res.url()).pathname !== '/favicon.ico') problems.push(`${res.status()} ${res.url()}`);
    });

    await page.goto(app.origin);
    await page.click('#sign-in');
    await page.waitForURL(/\/authorize\?/);
    expect(await page.locator('#app-name').innerText()).toBe('Browser App');
    await page.getByRole('button', { name: /Ada Agent/ }).click();
    await page.waitForURL(`${app.origin}/signed-in`);
    await page.locator('#result').filter({ hasText: 'state_ok' }).waitFor();
    const first = JSON.parse(await page.locator('#result').innerText()) as SignInResult;
    expect(first).toMatchObject({ state_ok: true, nonce_ok: true, sub: info.agent.id, name: 'Ada Agent', token_type: 'bearer', expires_in: '3600' });
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Bearer ${first.access_token}` })).status).toBe(200);

    // Silent renewal: prompt=none in a hidden frame, the result handed over by /callback.
    const renewed = (await page.evaluate('renew()')) as SignInResult;
    expect(renewed).toMatchObject({ state_ok: true, nonce_ok: true, sub: info.agent.id, token_type: 'bearer' });
    expect(renewed.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(renewed.access_token).not.toBe(first.access_token);
    expect(await page.locator('iframe').count()).toBe(0);

    // A pop-up (signed in already, so no login page): its /callback page hands the result to the opener and closes.
    const popup = (await page.evaluate('signInWithPopup()')) as SignInResult;
    expect(popup).toMatchObject({ state_ok: true, nonce_ok: true, sub: info.agent.id, token_type: 'bearer' });
    await expect.poll(() => page.context().pages().length, { timeout: STEP_MS }).toBe(1);

    // Signed out: the silent attempt answers login_required, and the app would ask the user to sign in again.
    await sb.call('DELETE', '/_sandbox/sign_in_sessions');
    const refused = (await page.evaluate('renew()')) as SignInResult;
    expect(refused).toEqual({ error: 'login_required', state_ok: true });
    expect(problems).toEqual([]);
  });
});
