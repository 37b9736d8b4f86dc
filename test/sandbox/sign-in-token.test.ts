/**
 * The code flow's POST {auth_url}/token and the discovery documents. Spec 01
 * leaves the token request "not shown"; the sandbox speaks RFC 6749 (form or
 * JSON body, client_secret_basic or client_secret_post) and answers the
 * user's own, non-expiring API token with token_type Token. Guards against:
 * a code usable twice or by another app, and secrets accepted through two
 * mechanisms at once.
 */
import { describe, expect, it } from 'vitest';
import { TokenResponse } from '../../src/platform/schemas/sign-in.ts';
import { authorize, implicitParams, redirected, registerApp, verifyIdToken, type RegisteredApp } from './sign-in-support.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

/** A fresh code for the seeded agent, through the login_hint shortcut. */
async function codeFor(sb: TestSandbox, app: RegisteredApp, scope = 'openid'): Promise<string> {
  const info = await sb.info();
  const res = await authorize(sb, implicitParams(app, { response_type: 'code', scope, login_hint: info.agent.id }));
  const code = redirected(res.location).query.code;
  if (code === undefined) throw new Error(`no code: ${res.location}`);
  return code;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function exchange(sb: TestSandbox, body: Record<string, string>, options: { authorization?: string; json?: boolean } = {}) {
  const headers: Record<string, string> = {
    'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
  };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const res = await fetch(`${sb.url}/token`, {
    method: 'POST',
    headers,
    body: options.json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary response shapes
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('sandbox sign-in: token endpoint', () => {
  it('exchanges a code (form, client_secret_basic) for the user API token, type Token, that never expires, and an ID token', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const info = await sb.info();
    const code = await codeFor(sb, app, 'openid profile');
    const res = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri: app.redirect_uris[0] ?? '' }, {
      authorization: basic(app.client_id, app.client_secret),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = TokenResponse.parse(res.body);
    expect(token).toMatchObject({ access_token: sb.token, token_type: 'Token', scope: 'openid profile' });
    expect(res.body.expires_in).toBeUndefined();
    expect(res.body.refresh_token).toBeUndefined();
    const claims = await verifyIdToken(sb, token.id_token ?? '', app.client_id);
    expect(claims).toMatchObject({ sub: info.agent.id, org: sb.organizationId, nonce: 'n-0S6_WzA2Mj', given_name: 'Ada' });

    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 30 * 24 * 3600 });
    expect((await sb.call('GET', sb.um, undefined, { authorization: `Token ${token.access_token}` })).status).toBe(200);
  });

  it('accepts client_secret_post and a JSON body; a user without an API token gets one generated', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const post = await exchange(sb, {
      grant_type: 'authorization_code',
      code: await codeFor(sb, app),
      redirect_uri: app.redirect_uris[0] ?? '',
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(post.status).toBe(200);
    expect(post.body.access_token).toBe(sb.token);

    const user = await sb.call('POST', '/_sandbox/users', { name: 'Nina New' });
    const hinted = await authorize(sb, implicitParams(app, { response_type: 'code', login_hint: user.body.id }));
    const json = await exchange(
      sb,
      { grant_type: 'authorization_code', code: redirected(hinted.location).query.code ?? '', redirect_uri: app.redirect_uris[0] ?? '' },
      { authorization: basic(app.client_id, app.client_secret), json: true },
    );
    expect(json.status).toBe(200);
    expect(json.body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(json.body.access_token).not.toBe(sb.token);
    // Stable: the same user's next code flow returns the same API token.
    const second = await exchange(sb, {
      grant_type: 'authorization_code',
      code: redirected((await authorize(sb, implicitParams(app, { response_type: 'code', login_hint: user.body.id }))).location).query.code ?? '',
      redirect_uri: app.redirect_uris[0] ?? '',
      client_id: app.client_id,
      client_secret: app.client_secret,
    });
    expect(second.body.access_token).toBe(json.body.access_token);
  });

  it('refuses client authentication failures: invalid_client (401 + WWW-Authenticate with Basic, 400 in the body), two mechanisms invalid_request', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const redirect_uri = app.redirect_uris[0] ?? '';
    const code = await codeFor(sb, app);
    const wrongBasic = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri }, { authorization: basic(app.client_id, 'wrong-secret') });
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.body.error).toBe('invalid_client');
    expect(wrongBasic.headers.get('www-authenticate')).toMatch(/^Basic/);
    const wrongPost = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri, client_id: app.client_id, client_secret: 'nope' });
    expect(wrongPost.status).toBe(400);
    expect(wrongPost.body.error).toBe('invalid_client');
    const none = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_client');
    const both = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri, client_secret: app.client_secret }, {
      authorization: basic(app.client_id, app.client_secret),
    });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(/one client authentication/) });

    // None of the refusals used the code up.
    const ok = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri }, { authorization: basic(app.client_id, app.client_secret) });
    expect(ok.status).toBe(200);
  });

  it('refuses bad grants: used, expired, another app’s code, another redirect_uri (invalid_grant); other grant types; missing code', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const other = await registerApp(sb);
    const redirect_uri = app.redirect_uris[0] ?? '';
    const auth = { authorization: basic(app.client_id, app.client_secret) };
    const grant = (code: string, extra: Record<string, string> = {}) => ({ grant_type: 'authorization_code', code, redirect_uri, ...extra });

    const code = await codeFor(sb, app);
    expect((await exchange(sb, grant(code), auth)).status).toBe(200);
    const reused = await exchange(sb, grant(code), auth);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');

    const stale = await codeFor(sb, app);
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 601 });
    expect((await exchange(sb, grant(stale), auth)).body.error).toBe('invalid_grant');

    const stolen = await exchange(sb, grant(await codeFor(sb, app)), { authorization: basic(other.client_id, other.client_secret) });
    expect(stolen.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/another app/) });
    const moved = await exchange(sb, grant(await codeFor(sb, app), { redirect_uri: 'https://app.example.test/elsewhere' }), auth);
    expect(moved.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/redirect_uri/) });

    const password = await exchange(sb, grant('x', { grant_type: 'password' }), auth);
    expect(password.status).toBe(400);
    expect(password.body.error).toBe('unsupported_grant_type');
    const missing = await exchange(sb, { grant_type: 'authorization_code', redirect_uri }, auth);
    expect(missing.body).toMatchObject({ error: 'invalid_request', error_description: 'code is required.' });
  });

  it('codes never exchanged do not pile up: an expired one is gone after the next issue', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const redirect_uri = app.redirect_uris[0] ?? '';
    const auth = { authorization: basic(app.client_id, app.client_secret) };
    const pending = async () => (await sb.call('GET', '/_sandbox/sign_in_state')).body.pending_codes as number;

    expect(await pending()).toBe(0);
    const stale = [await codeFor(sb, app), await codeFor(sb, app)];
    expect(await pending()).toBe(2);
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 601 });
    expect(await pending()).toBe(2); // swept on issue, not on read
    const fresh = await codeFor(sb, app);
    expect(await pending()).toBe(1);
    for (const code of stale) expect((await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri }, auth)).body.error).toBe('invalid_grant');

    // A code still within its 10 minutes survives later issues and can be exchanged.
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 300 });
    await codeFor(sb, app);
    expect(await pending()).toBe(2);
    expect((await exchange(sb, { grant_type: 'authorization_code', code: fresh, redirect_uri }, auth)).status).toBe(200);
    expect(await pending()).toBe(1);
  });

  it('a disabled app cannot exchange its codes', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb);
    const code = await codeFor(sb, app);
    expect((await sb.call('PATCH', `/_sandbox/apps/${app.client_id}`, { enabled: false })).body.enabled).toBe(false);
    const res = await exchange(sb, { grant_type: 'authorization_code', code, redirect_uri: app.redirect_uris[0] ?? '' }, {
      authorization: basic(app.client_id, app.client_secret),
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});

describe('sandbox sign-in: discovery', () => {
  it('publishes the OpenID configuration at the sandbox address and an RS256 key set', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('GET', '/.well-known/openid-configuration', undefined, { authorization: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: sb.url,
      authorization_endpoint: `${sb.url}/authorize`,
      token_endpoint: `${sb.url}/token`,
      jwks_uri: `${sb.url}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['id_token token', 'id_token', 'code'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
    const jwks = await sb.call('GET', '/.well-known/jwks.json', undefined, { authorization: null });
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' });
    expect(jwks.body.keys[0].d).toBeUndefined();
  });
});
