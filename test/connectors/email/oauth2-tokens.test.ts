/**
 * The token manager on its own (connectors/email/oauth2-tokens.ts) against
 * the test's token endpoint: one refresh for concurrent callers, a token kept
 * until a minute before it expires, a backoff after a refused refresh, a new
 * configured refresh token winning over a stored rotated one, and a stored
 * one that does not open with the key left alone.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { OAuth2Settings } from '../../../connectors/email/config.ts';
import { OAuth2RefreshError, OAuth2Tokens, providerEndpoint } from '../../../connectors/email/oauth2-tokens.ts';
import { createSealer } from '../../../src/bridge/sealer.ts';
import { memoryState } from '../../support/memory-state.ts';
import { mailServers } from '../../support/mail-servers.ts';
import { startOAuth2Provider, type OAuth2Provider } from '../../support/oauth2-provider.ts';


const logger = pino({ level: 'silent' });
const settings = (p: OAuth2Provider, refreshToken: string): OAuth2Settings => ({
  type: 'oauth2', user: 'u', provider: 'custom', client_id: p.clientId, client_secret: p.clientSecret, refresh_token: refreshToken, token_url: p.tokenUrl,
});

describe('OAuth2 tokens', () => {
  it('refreshes once for concurrent callers and keeps the token until a minute before it expires', async () => {
    const p = await startOAuth2Provider();
    const refresh = p.grant(await mailServers().addUser('tokens'));
    const tokens = new OAuth2Tokens(settings(p, refresh), { state: memoryState(), sealer: undefined, logger });
    const [a, b] = await Promise.all([tokens.accessToken(), tokens.accessToken()]);
    expect(a).toBe(b);
    expect(await tokens.accessToken()).toBe(a);
    expect(p.refreshes).toHaveLength(1);
    expect(await tokens.accessToken(true)).not.toBe(a); // refused by a server: renewed
    p.accessTtlSeconds = 30; // under a minute: refreshed at every ask
    const short = await tokens.accessToken(true);
    expect(await tokens.accessToken()).not.toBe(short);
    expect(p.refreshes).toHaveLength(4);
  });

  it('backs off after a refused refresh, answering the same error meanwhile', async () => {
    const p = await startOAuth2Provider();
    const tokens = new OAuth2Tokens(settings(p, 'never-granted'), { state: memoryState(), sealer: undefined, logger });
    const first = await tokens.accessToken().catch((err: unknown) => err);
    expect(first).toBeInstanceOf(OAuth2RefreshError);
    expect((first as Error).message).toBe('the custom token endpoint refused the refresh: invalid_grant: Token has been expired or revoked.');
    expect(await tokens.accessToken().catch((err: unknown) => err)).toBe(first);
    expect(p.refreshes).toHaveLength(1);
    expect(tokens.status).toMatchObject({ ok: false, last_error: (first as Error).message });
  });

  it('a new configured refresh token wins over a stored rotated one; one sealed under another key is left alone', async () => {
    const p = await startOAuth2Provider();
    p.rotate = true;
    const user = await mailServers().addUser('tokens');
    const state = memoryState();
    const sealer = createSealer('k'.repeat(40));
    const configured = p.grant(user);
    await new OAuth2Tokens(settings(p, configured), { state, sealer, logger }).accessToken();
    const rotated = p.refreshes.length;
    // A restart: the stored, rotated token is the one used.
    await new OAuth2Tokens(settings(p, configured), { state, sealer, logger }).accessToken();
    expect(p.refreshes[rotated]!.refreshToken).not.toBe(configured);
    expect(p.refreshes[rotated]!.granted).toBe(true);
    // New consent: the settings name a new token, which is used instead of the stored one.
    const renewed = p.grant(user);
    await new OAuth2Tokens(settings(p, renewed), { state, sealer, logger }).accessToken();
    expect(p.refreshes.at(-1)!.refreshToken).toBe(renewed);
    // Another key cannot open what is stored: the configured token is used (refused here: it was rotated away).
    const other = await new OAuth2Tokens(settings(p, renewed), { state, sealer: createSealer('z'.repeat(40)), logger }).accessToken().catch((e: unknown) => e);
    expect(other).toBeInstanceOf(OAuth2RefreshError);
    expect(p.refreshes.at(-1)!.refreshToken).toBe(renewed);
  });

  it("knows the providers' endpoints and scopes", () => {
    const base = { type: 'oauth2' as const, user: 'u', client_id: 'c', refresh_token: 'r' };
    expect(providerEndpoint({ ...base, provider: 'google' })).toEqual({ tokenUrl: 'https://oauth2.googleapis.com/token', scope: 'https://mail.google.com/' });
    expect(providerEndpoint({ ...base, provider: 'microsoft', tenant: 'contoso.onmicrosoft.com' })).toEqual({
      tokenUrl: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token',
      scope: 'https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access',
    });
    expect(providerEndpoint({ ...base, provider: 'microsoft' }).tokenUrl).toContain('/organizations/');
  });
});
