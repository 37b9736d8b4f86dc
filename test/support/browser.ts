/**
 * A real browser for the admin page suites: Debian's Chromium driven by
 * playwright-core (scripts/install-test-browser installs it), headless, in
 * its own profile, closed after the test; and the waits and checks the page
 * suites share.
 */
import { chromium, type Page } from 'playwright-core';
import { expect, onTestFinished } from 'vitest';
import { tempDir } from './temp-dir.ts';

const CHROMIUM = '/usr/bin/chromium';
/** How long one step of the page may take (a replay or retry runs through the job runner). */
export const STEP_MS = 10_000;
const STACK_LINE = /^\s*at .+/m;

export async function openBrowser(): Promise<Page> {
  const context = await chromium.launchPersistentContext(tempDir('threadgate-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1440, height: 1000 },
  });
  onTestFinished(() => context.close());
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(STEP_MS);
  return page;
}

/** Waits for the page to show what is expected, as long as a step may take. */
export const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: STEP_MS });

export const noStack = async (page: Page) => expect(await page.locator('body').innerText()).not.toMatch(STACK_LINE);

/** Page errors and console errors other than the browser's own line for each 4xx it fetched (those refusals are part of the tests). */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  return problems;
}

/** The admin page of `gatewayUrl`, signed in with `token`; with the collector of its page errors. */
export async function signedInAdminPage(gatewayUrl: string, token: string): Promise<{ page: Page; problems: string[] }> {
  const page = await openBrowser();
  const problems = pageProblems(page);
  await page.goto(`${gatewayUrl}/admin`);
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  await page.locator('#app').waitFor({ state: 'visible' });
  return { page, problems };
}
