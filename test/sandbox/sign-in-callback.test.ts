/**
 * GET {auth_url}/callback (spec 01): target, origin (no wildcard) and
 * client_id are required; the page serves only callback URIs the app
 * registered, and its script posts `svc-auth-callback:` + the hash to the
 * named window and origin alone. (The browser suite runs the page for real.)
 */
import { describe, expect, it } from 'vitest';
import { registerApp, step } from './sign-in-support.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

const APP_ORIGIN = 'https://app.example.test';

async function callbackApp(sb: TestSandbox, target = 'parent') {
  const clientId = crypto.randomUUID();
  const path = `/callback?target=${target}&origin=${encodeURIComponent(APP_ORIGIN)}&client_id=${clientId}`;
  await registerApp(sb, { client_id: clientId, redirect_uris: [`${sb.url}${path}`] });
  return { clientId, path };
}

describe('sandbox sign-in: callback page', () => {
  it('serves a registered callback URI: an HTML page posting the prefixed hash to the parent at the app origin only', async () => {
    const sb = await startTestSandbox();
    const { path } = await callbackApp(sb);
    const res = await step(`${sb.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/html/);
    expect(res.text).toContain('"target":"parent"');
    expect(res.text).toContain(`"origin":"${APP_ORIGIN}"`);
    expect(res.text).toContain('"prefix":"svc-auth-callback:"');
    expect(res.text).toContain('postMessage(message, config.origin)');
    const page = await fetch(`${sb.url}${path}`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(await page.text()).toContain(`<script nonce="${nonce}">`);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('opener target for pop-ups', async () => {
    const sb = await startTestSandbox();
    const { path } = await callbackApp(sb, 'opener');
    const res = await step(`${sb.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('"target":"opener"');
  });

  it('400 for a missing or unknown target, the wildcard origin, an origin with a path, a client_id that is not a UUID', async () => {
    const sb = await startTestSandbox();
    const id = crypto.randomUUID();
    const cases: [string, string, RegExp][] = [
      [`origin=${APP_ORIGIN}&client_id=${id}`, 'target', /required/],
      [`target=top&origin=${APP_ORIGIN}&client_id=${id}`, 'target', /parent or opener/],
      [`target=parent&origin=*&client_id=${id}`, 'origin', /wildcard/],
      [`target=parent&origin=${APP_ORIGIN}/app&client_id=${id}`, 'origin', /scheme:\/\/host/],
      [`target=parent&origin=${APP_ORIGIN}&client_id=app-1`, 'client_id', /UUID/],
      [`target=parent&origin=${APP_ORIGIN}`, 'client_id', /required/],
    ];
    for (const [query, field, message] of cases) {
      const res = await sb.call('GET', `/callback?${query}`, undefined, { authorization: null });
      expect(res.status, query).toBe(400);
      expect(res.body.errors[field]?.[0], query).toMatch(message);
    }
  });

  it('404 for an unknown app; 403 for a callback URI the app did not register (another origin)', async () => {
    const sb = await startTestSandbox();
    const { clientId } = await callbackApp(sb);
    const unknown = await sb.call('GET', `/callback?target=parent&origin=${APP_ORIGIN}&client_id=${crypto.randomUUID()}`, undefined, {
      authorization: null,
    });
    expect(unknown.status).toBe(404);
    const other = encodeURIComponent('https://evil.example.test');
    const foreign = await sb.call('GET', `/callback?target=parent&origin=${other}&client_id=${clientId}`, undefined, { authorization: null });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/not an allowed redirect URI/);
  });
});
