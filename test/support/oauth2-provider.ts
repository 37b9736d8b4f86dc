/**
 * A real OAuth2 token endpoint on a loopback port, playing Google or
 * Microsoft for the e-mail connector's built-in refresh: the refresh-token
 * grant (`POST /token`, form-encoded) answered as they answer it. Access
 * tokens are registered with the test Dovecot's token check
 * (issueAccessToken), so they log in to IMAP and submission until they
 * expire. A test grants refresh tokens, revokes and restores them, makes the
 * endpoint rotate them (Microsoft-style, the used one then refused), and reads
 * what was asked. Closed after the test.
 *
 *   200 {access_token, token_type: "Bearer", expires_in, scope, refresh_token?}
 *   400 {error: "invalid_grant", error_description: "Token has been expired or revoked."}
 *   401 {error: "invalid_client", error_description: "The OAuth client was not found."}
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { issueAccessToken, type MailUser } from './mail-servers.ts';

export interface OAuth2Provider {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Seconds each access token lives. */
  accessTtlSeconds: number;
  /** Answer each refresh with a new refresh token and refuse the one used from then on. */
  rotate: boolean;
  /** Every refresh asked for: with which refresh token, and whether it was granted. */
  refreshes: { refreshToken: string; scope: string | null; granted: boolean }[];
  /** Every access token handed out. */
  issued: string[];
  /** A refresh token for `user` (consent given). */
  grant(user: MailUser): string;
  /** Consent withdrawn: the token is refused from now on. */
  revoke(refreshToken: string): void;
  /** Consent given again for the same token. */
  restore(refreshToken: string): void;
}

const token = (prefix: string) => `${prefix}-${randomBytes(12).toString('base64url')}`;

export async function startOAuth2Provider(): Promise<OAuth2Provider> {
  const grants = new Map<string, MailUser>();
  const revoked = new Map<string, MailUser>();
  const provider: OAuth2Provider = {
    tokenUrl: '',
    clientId: `client-${randomBytes(4).toString('hex')}.apps.test`,
    clientSecret: token('secret'),
    accessTtlSeconds: 3_600,
    rotate: false,
    refreshes: [],
    issued: [],
    grant(user) {
      const refresh = token('refresh');
      grants.set(refresh, user);
      return refresh;
    },
    revoke(refresh) {
      const user = grants.get(refresh);
      if (user) revoked.set(refresh, user);
      grants.delete(refresh);
    },
    restore(refresh) {
      const user = revoked.get(refresh);
      if (user) grants.set(refresh, user);
      revoked.delete(refresh);
    },
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const answer = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        const form = new URLSearchParams(body);
        if (req.method !== 'POST' || req.url !== '/token') return answer(404, { error: 'not_found' });
        if (form.get('client_id') !== provider.clientId || form.get('client_secret') !== provider.clientSecret) {
          return answer(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        }
        const refresh = form.get('refresh_token') ?? '';
        const user = form.get('grant_type') === 'refresh_token' ? grants.get(refresh) : undefined;
        provider.refreshes.push({ refreshToken: refresh, scope: form.get('scope'), granted: user !== undefined });
        if (user === undefined) return answer(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        const access = await issueAccessToken(user, { expiresInSeconds: provider.accessTtlSeconds });
        provider.issued.push(access);
        let rotated: string | undefined;
        if (provider.rotate) {
          grants.delete(refresh);
          rotated = provider.grant(user);
        }
        answer(200, { access_token: access, token_type: 'Bearer', expires_in: provider.accessTtlSeconds, scope: form.get('scope') ?? '', ...(rotated ? { refresh_token: rotated } : {}) });
      })().catch((err: Error) => res.writeHead(500).end(err.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.tokenUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return provider;
}
