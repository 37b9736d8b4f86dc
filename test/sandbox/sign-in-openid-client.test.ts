/**
 * A standard OpenID Connect library against the sandbox: openid-client v6
 * configures itself by discovery, sends the user through /authorize (the
 * login_hint shortcut stands in for the login page), exchanges the code at
 * /token with client_secret_basic and validates the ID token (RS256
 * signature from the JWKS, iss, aud, exp, iat, nonce, state).
 *
 * Plain http to 127.0.0.1 needs openid-client's allowInsecureRequests — in
 * this test only. One adapter is needed and is a finding about the platform,
 * not the sandbox: the code flow's token_type is `Token` (spec 01,
 * Authentication 2: the word to use in the Authorization header), and
 * openid-client refuses token types other than bearer and DPoP. The custom
 * fetch below keeps the real token_type aside and hands the library `bearer`;
 * apps using openid-client against the platform need the same.
 */
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { IdTokenClaims } from '../../src/platform/schemas/sign-in.ts';
import { redirected, registerApp } from './sign-in-support.ts';
import { startTestSandbox } from './support.ts';

const REDIRECT = 'https://app.example.test/oidc/callback';

describe('sandbox sign-in with openid-client', () => {
  it('completes the code flow by discovery and validates the ID token', async () => {
    const sb = await startTestSandbox();
    const app = await registerApp(sb, { redirect_uris: [REDIRECT] });
    const info = await sb.info();

    const config = await oidc.discovery(new URL(sb.url), app.client_id, undefined, oidc.ClientSecretBasic(app.client_secret), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().issuer).toBe(sb.url);
    const tokenTypes: string[] = [];
    config[oidc.customFetch] = async (url, options) => {
      const res = await fetch(url, options as RequestInit);
      if (new URL(url).pathname !== '/token' || !res.ok) return res;
      const body = (await res.json()) as { token_type: string };
      tokenTypes.push(body.token_type);
      return Response.json({ ...body, token_type: 'bearer' }, { status: res.status, headers: res.headers });
    };

    const nonce = oidc.randomNonce();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      nonce,
      state,
      login_hint: info.agent.id,
    });
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = answer.headers.get('location') ?? '';
    expect(redirected(location).base).toBe(REDIRECT);

    const tokens = await oidc.authorizationCodeGrant(config, new URL(location), {
      expectedNonce: nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(tokenTypes).toEqual(['Token']);
    expect(tokens.access_token).toBe(sb.token);
    const claims = IdTokenClaims.parse(tokens.claims());
    expect(claims).toMatchObject({ iss: sb.url, sub: info.agent.id, aud: [app.client_id], nonce, org: sb.organizationId, name: 'Ada Agent' });

    // The access token is the user's API token: it works with the `Token` word the sandbox issued.
    expect((await sb.call('GET', sb.um, undefined, { authorization: `${tokenTypes[0]} ${tokens.access_token}` })).status).toBe(200);

    // A tampered state is caught by the library.
    const replay = new URL(location);
    replay.searchParams.set('state', 'forged');
    await expect(oidc.authorizationCodeGrant(config, replay, { expectedNonce: nonce, expectedState: state })).rejects.toMatchObject({
      cause: { message: expect.stringMatching(/"state"/) },
    });
  });
});
