/**
 * GET {auth_url}/authorize as the sandbox serves it (spec 01, "Sign-in
 * endpoints" and "Errors"): every OAuth error code answered the documented
 * way — in the URI hash for the implicit flow, in the URI query for the code
 * flow — and, where client_id or redirect_uri cannot be trusted, not
 * redirected at all. Guards against: errors leaking to an unregistered
 * redirect URI, and implicit responses in the query (where servers log them).
 */
import { describe, expect, it } from 'vitest';
import { AuthError, ImplicitAuthSuccess } from '../../src/platform/schemas/sign-in.ts';
import { APP_REDIRECT, authorize, implicitParams, redirected, registerApp, verifyIdToken } from './sign-in-support.ts';
import { startTestSandbox } from './support.ts';

describe('sandbox sign-in: app registration', () => {
  it('requires https redirect URIs, accepts loopback http and says it is sandbox-only', async () => {
    const sb = await startTestSandbox();
    const refused = await sb.call('POST', '/_sandbox/apps', { redirect_uris: ['https://ok.test/cb', 'http://app.example.test/cb'] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors['redirect_uris.1'][0]).toMatch(/https scheme is required/);
    const fragment = await sb.call('POST', '/_sandbox/apps', { redirect_uris: ['https://ok.test/cb#x'] });
    expect(fragment.body.errors['redirect_uris.0'][0]).toMatch(/fragment/);

    const https = await registerApp(sb);
    expect(https.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(https.client_secret.length).toBeGreaterThanOrEqual(16);
    expect(https.notes).toEqual([]);
    const loopback = await registerApp(sb, { redirect_uris: ['http://127.0.0.1:8080/cb', 'http://localhost/cb'] });
    expect(loopback.notes[0]).toMatch(/sandbox only; the platform requires https/);
    expect((await sb.call('GET', `/_sandbox/apps/${loopback.client_id}`)).body.redirect_uris).toEqual(['http://127.0.0.1:8080/cb', 'http://localhost/cb']);
  });
});

describe('sandbox sign-in: requests that cannot be redirected', () => {
  it('answers 400 with invalid_client for an unknown client_id and invalid_request for a missing one', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const unknown = await authorize(sb, implicitParams(app, { client_id: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeUndefined();
    expect(JSON.parse(unknown.text)).toMatchObject({ error: 'invalid_client' });
    const { client_id: _omitted, ...rest } = implicitParams(app);
    const missing = await authorize(sb, rest);
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/client_id/) });
  });

  it('never redirects to a redirect_uri the app did not register, even one differing only by a slash', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    for (const redirect_uri of [`${APP_REDIRECT}/`, 'https://evil.example.test/signed-in']) {
      const res = await authorize(sb, implicitParams(app, { redirect_uri }));
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(JSON.parse(res.text)).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/redirect_uri/) });
    }
  });
});

describe('sandbox sign-in: errors in the redirect', () => {
  const cases: { name: string; params: Record<string, string>; error: string; about: RegExp }[] = [
    { name: 'nonce missing', params: { nonce: '' }, error: 'invalid_request', about: /nonce/ },
    { name: 'scope missing', params: { scope: '' }, error: 'invalid_request', about: /scope/ },
    { name: 'scope without openid', params: { scope: 'profile email' }, error: 'invalid_scope', about: /openid/ },
    { name: 'unknown scope value', params: { scope: 'openid admin' }, error: 'invalid_scope', about: /admin/ },
    { name: 'unsupported response_type', params: { response_type: 'token' }, error: 'invalid_request', about: /response_type/ },
    { name: 'unknown prompt', params: { prompt: 'consent' }, error: 'invalid_request', about: /prompt/ },
    { name: 'unknown parameter', params: { display: 'popup' }, error: 'invalid_request', about: /display/ },
  ];

  for (const c of cases) {
    it(`implicit flow, ${c.name}: ${c.error} in the hash with the state`, async () => {
      const sb = await startTestSandbox();
      const app = await registerApp(sb);
      const params = Object.fromEntries(Object.entries(implicitParams(app, c.params)).filter(([, v]) => v !== ''));
      const res = await authorize(sb, params);
      expect(res.status).toBe(302);
      const { base, hash, query } = redirected(res.location);
      expect(base).toBe(APP_REDIRECT);
      expect(query).toEqual({});
      expect(AuthError.parse(hash)).toMatchObject({ error: c.error, state: 'af0ifjsldkj' });
      expect(hash.error_description).toMatch(c.about);
      expect(hash.error_description).toMatch(/^[\x20-\x7e]*$/);
    });
  }

  it('a repeated parameter is invalid_request', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const res = await authorize(sb, [...Object.entries(implicitParams(app)), ['nonce', 'second']]);
    const { hash } = redirected(res.location);
    expect(hash).toMatchObject({ error: 'invalid_request', state: 'af0ifjsldkj' });
    expect(hash.error_description).toMatch(/Repeated parameter: nonce/);
  });

  it('code flow: the same errors travel in the query, not the hash', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const res = await authorize(sb, implicitParams(app, { response_type: 'code', scope: 'email' }));
    expect(res.status).toBe(302);
    expect(new URL(res.location ?? '').hash).toBe('');
    expect(redirected(res.location).query).toMatchObject({ error: 'invalid_scope', state: 'af0ifjsldkj' });
  });

  it('a disabled app ("unrecognized internal client") gets invalid_client in the redirect, hash or query by flow', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb, { enabled: false });
    const implicit = redirected((await authorize(sb, implicitParams(app))).location);
    expect(implicit.hash).toMatchObject({ error: 'invalid_client', state: 'af0ifjsldkj' });
    const code = redirected((await authorize(sb, implicitParams(app, { response_type: 'code' }))).location);
    expect(code.query).toMatchObject({ error: 'invalid_client', state: 'af0ifjsldkj' });
    expect(code.hash).toEqual({});
  });

  it('prompt=none without a session: login_required (hash for implicit, query for code)', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    expect(redirected((await authorize(sb, implicitParams(app, { prompt: 'none' }))).location).hash).toMatchObject({
      error: 'login_required',
      state: 'af0ifjsldkj',
    });
    // login_hint is not a session: prompt=none still refuses.
    const info = await sb.info();
    const hinted = await authorize(sb, implicitParams(app, { prompt: 'none', response_type: 'code', login_hint: info.agent.id }));
    expect(redirected(hinted.location).query).toMatchObject({ error: 'login_required' });
    expect(hinted.cookie).toBeUndefined();
  });

  it('prompt=none with a session of another user than login_hint names: interaction_required', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const info = await sb.info();
    const signIn = await authorize(sb, implicitParams(app, { login_hint: info.agent.id }));
    expect(signIn.cookie).toBeDefined();
    const other = await sb.call('POST', '/_sandbox/users', { name: 'Otto Other' });
    const res = await authorize(sb, implicitParams(app, { prompt: 'none', login_hint: other.body.id }), signIn.cookie);
    expect(redirected(res.location).hash).toMatchObject({ error: 'interaction_required', state: 'af0ifjsldkj' });
  });

  it('a login_hint naming nobody is invalid_request', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const res = await authorize(sb, implicitParams(app, { login_hint: 'nobody@example.test' }));
    expect(redirected(res.location).hash).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/login_hint/) });
  });
});

describe('sandbox sign-in: implicit flow success', () => {
  it('id_token token: bearer token, ID token, state, expires_in, socket_url in the hash; the access token expires after expires_in', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const info = await sb.info();
    const res = await authorize(sb, implicitParams(app, { login_hint: info.agent.id }));
    expect(res.status).toBe(302);
    const { base, hash, query } = redirected(res.location);
    expect(base).toBe(APP_REDIRECT);
    expect(query).toEqual({});
    const success = ImplicitAuthSuccess.parse(hash);
    expect(success).toMatchObject({ token_type: 'bearer', state: 'af0ifjsldkj', expires_in: 3600 });
    expect(success.socket_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    expect(success.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(success.access_token).not.toBe(sb.token);

    const claims = await verifyIdToken(sb, success.id_token, app.client_id);
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'nonce', 'org', 'sub']);
    expect(claims).toMatchObject({ iss: sb.url, sub: info.agent.id, aud: [app.client_id], nonce: 'n-0S6_WzA2Mj', org: sb.organizationId });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(3600);

    // The access token authorizes API calls as the user (with the user's scopes) until it expires.
    const bearer = `Bearer ${success.access_token}`;
    expect((await sb.call('GET', sb.um, undefined, { authorization: bearer })).status).toBe(200);
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 3601 });
    const expired = await sb.call('GET', sb.um, undefined, { authorization: bearer });
    expect(expired.status).toBe(401);
    expect(expired.body.detail).toMatch(/expired/i);
    expect((await sb.call('GET', sb.um)).status).toBe(200);
  });

  it('expired implicit access tokens do not pile up: one is gone after the next implicit issue', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const info = await sb.info();
    const issue = async () => ImplicitAuthSuccess.parse(redirected((await authorize(sb, implicitParams(app, { login_hint: info.agent.id }))).location).hash).access_token ?? '';
    const held = async () => (await sb.call('GET', '/_sandbox/sign_in_state')).body.implicit_tokens as number;
    const detailFor = async (token: string) => {
      const res = await sb.call('GET', sb.um, undefined, { authorization: `Bearer ${token}` });
      return `${res.status} ${res.body.detail ?? ''}`;
    };

    expect(await held()).toBe(0);
    const old = [await issue(), await issue()];
    expect(await held()).toBe(2);
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 3601 });
    expect(await detailFor(old[0] ?? '')).toBe('401 Token expired.');
    const fresh = await issue();
    expect(await held()).toBe(1);
    for (const token of old) expect(await detailFor(token)).toBe('401 Invalid token.');
    expect(await detailFor(fresh)).toBe('200 ');

    // A token still valid survives later issues; the user's own API token is never swept.
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 1800 });
    await issue();
    expect(await held()).toBe(2);
    expect(await detailFor(fresh)).toBe('200 ');
    expect((await sb.call('GET', sb.um)).status).toBe(200);
  });

  it('id_token only: no access token; scope profile adds the name claims', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const info = await sb.info();
    const res = await authorize(sb, implicitParams(app, { response_type: 'id_token', scope: 'openid profile', login_hint: info.agent.id }));
    const { hash } = redirected(res.location);
    expect(hash.access_token).toBeUndefined();
    const claims = await verifyIdToken(sb, ImplicitAuthSuccess.parse(hash).id_token, app.client_id);
    expect(claims).toMatchObject({ name: 'Ada Agent', given_name: 'Ada', family_name: 'Agent' });
    expect(claims.picture).toBeUndefined();
    expect(claims.email).toBeUndefined();
  });

  it('without a session shows the login page; choosing a user signs in, and later requests (prompt=none too) use the session', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb, { name: 'Helpdesk Console' });
    const info = await sb.info();
    const params = implicitParams(app, { response_type: 'code' });
    const page = await authorize(sb, params);
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html/);
    expect(page.text).toContain('Helpdesk Console');
    expect(page.text).toContain(`value="${info.agent.id}"`);
    expect(page.text).toContain('Ada Agent');

    const rawQuery = new URLSearchParams(params).toString();
    const login = await fetch(`${sb.url}/authorize/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ request: rawQuery, user_id: info.agent.id }),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')?.split(';')[0];
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    expect(redirected(login.headers.get('location') ?? undefined).query).toMatchObject({ code: expect.any(String), state: 'af0ifjsldkj' });

    const silent = await authorize(sb, implicitParams(app, { prompt: 'none' }), cookie);
    expect(ImplicitAuthSuccess.parse(redirected(silent.location).hash).id_token).toBeTruthy();
    const again = await authorize(sb, implicitParams(app, { prompt: 'login' }), cookie);
    expect(again.status).toBe(200);
    expect(again.text).toContain('<form');

    await sb.call('DELETE', '/_sandbox/sign_in_sessions');
    const signedOut = await authorize(sb, implicitParams(app, { prompt: 'none' }), cookie);
    expect(redirected(signedOut.location).hash).toMatchObject({ error: 'login_required' });
  });
});
