/**
 * The proxy issue's typed client against the sandbox's sign-in endpoints, with
 * all of url, builderUrl and authUrl set to the sandbox: the callback page is
 * fetched as a page, the code flow's exchange (a JSON body with the app ID
 * and secret) answers what TokenResponse parses, and authorize's redirect is
 * handed back as { status, location } — no special cases.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPlatformClient, PlatformHttpError } from '../../src/platform/client.ts';
import { authorize, implicitParams, redirected, registerApp } from './sign-in-support.ts';
import { startTestSandbox } from './support.ts';

describe('sandbox sign-in through the typed client', () => {
  it('exchanges a code with exchangeToken, loads the callback page with getAuthCallback, and gets authorize\'s redirect', async () => {
    const sb = await startTestSandbox();
    const client = createPlatformClient({ url: sb.url, builderUrl: sb.url, authUrl: sb.url, token: sb.token, organizationId: sb.organizationId });
    onTestFinished(() => client.close());
    const clientId = crypto.randomUUID();
    const origin = 'https://app.example.test';
    const callback = `${sb.url}/callback?target=opener&origin=${encodeURIComponent(origin)}&client_id=${clientId}`;
    const app = await registerApp(sb, { client_id: clientId, redirect_uris: ['https://app.example.test/cb', callback] });
    const info = await sb.info();

    const res = await authorize(sb, implicitParams(app, { response_type: 'code', scope: 'openid profile', login_hint: info.agent.id }));
    const code = redirected(res.location).query.code ?? '';
    const tokens = await client.exchangeToken({
      body: { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example.test/cb', client_id: clientId, client_secret: app.client_secret },
    });
    expect(tokens).toMatchObject({ access_token: sb.token, token_type: 'Token', id_token: expect.stringMatching(/^ey/) });

    // The same code again: the platform error surfaces with its status.
    const again = client.exchangeToken({
      body: { grant_type: 'authorization_code', code, redirect_uri: 'https://app.example.test/cb', client_id: clientId, client_secret: app.client_secret },
    });
    await expect(again).rejects.toBeInstanceOf(PlatformHttpError);
    await expect(again).rejects.toMatchObject({ status: 400 });

    const page = await client.getAuthCallback({ query: { target: 'opener', origin, client_id: clientId } });
    expect(String(page)).toContain('"target":"opener"');
    expect(String(page)).toContain('svc-auth-callback:');

    // authorize answers with a redirect, which the client hands back instead of following: without a browser
    // session, prompt=none ends at the redirect_uri with login_required in the hash (implicit flow).
    const silent = await client.authorize({
      query: { scope: 'openid', response_type: 'id_token token', client_id: clientId, redirect_uri: 'https://app.example.test/cb', nonce: 'n-1', state: 's-1', prompt: 'none' },
    });
    expect(silent.status).toBe(302);
    const hash = new URLSearchParams(new URL(silent.location ?? '').hash.slice(1));
    expect([hash.get('error'), hash.get('state')]).toEqual(['login_required', 's-1']);
  });
});
