/**
 * Built-in OAuth2 for the mailbox (`auth: { type: oauth2, provider, client_id,
 * client_secret, refresh_token }`): access tokens from the provider's token
 * endpoint with the refresh-token grant, for IMAP and SMTP (XOAUTH2).
 *
 * - A token is used until a minute before it expires, then refreshed; a login
 *   refused with a token that should still be good asks for a fresh one once
 *   (`accessToken(true)`). Concurrent callers share one refresh.
 * - A refresh that fails (revoked consent, a wrong secret) throws
 *   OAuth2RefreshError carrying the provider's own words (`invalid_grant:
 *   Token has been expired or revoked.`) and is tried again only after a
 *   backoff (1 s doubling to 60 s; callers asking meanwhile get the same
 *   error), so a burst of replies does not hammer the provider. The status
 *   (`ok`, `last_error`) is part of the connector's health.
 * - A refresh token the provider rotates (Microsoft does) is kept: in the
 *   connector's state (one entry per configured refresh token), sealed with the gateway's `store.encryption_key`, so a
 *   restart does not fall back to one that may be revoked; without a key, in
 *   memory only (said once in the log). The stored one is tied to the
 *   configured one it grew from: a new `refresh_token` in the settings (new
 *   consent) wins over it.
 * - No token, secret or code ever goes to the log or into an error message.
 */
import { createHash } from 'node:crypto';
import type { ConnectorState, Logger, Sealer } from '../../src/connector/api.ts';
import type { OAuth2Settings } from './config.ts';

export class OAuth2RefreshError extends Error {
  readonly code = 'TG_EMAIL_OAUTH2_REFRESH';
}

const MICROSOFT_SCOPE = 'https://outlook.office.com/IMAP.AccessAsUser.All https://outlook.office.com/SMTP.Send offline_access';

/** The provider's token endpoint and default scope. */
export function providerEndpoint(auth: OAuth2Settings): { tokenUrl: string; scope: string } {
  const tokenUrl =
    auth.token_url ??
    (auth.provider === 'google'
      ? 'https://oauth2.googleapis.com/token'
      : `https://login.microsoftonline.com/${encodeURIComponent(auth.tenant ?? 'organizations')}/oauth2/v2.0/token`);
  const scope = auth.scope ?? (auth.provider === 'google' ? 'https://mail.google.com/' : auth.provider === 'microsoft' ? MICROSOFT_SCOPE : '');
  return { tokenUrl, scope };
}

const EARLY_MS = 60_000;
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
const TIMEOUT_MS = 15_000;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** Per configured refresh token (its hash): IMAP and SMTP with grants of their own do not share one. */
const stateKey = (configured: string) => `oauth2:refresh-token:${sha256(configured).slice(0, 16)}`;

interface StoredRefresh {
  sealed: string;
  /** sha256 of the configured refresh token this one was rotated from. */
  from: string;
}

export interface OAuth2Status {
  ok: boolean;
  refreshed_at: string | null;
  last_error: string | null;
}


export class OAuth2Tokens {
  readonly #auth: OAuth2Settings;
  readonly #endpoint: { tokenUrl: string; scope: string };
  readonly #state: ConnectorState;
  readonly #sealer: Sealer | undefined;
  readonly #logger: Logger;
  #access: { token: string; expiresAt: number } | undefined;
  #rotated: string | undefined;
  #pending: Promise<string> | undefined;
  #failure: { error: OAuth2RefreshError; until: number; count: number } | undefined;
  #warnedNoKey = false;
  readonly status: OAuth2Status = { ok: true, refreshed_at: null, last_error: null };

  constructor(auth: OAuth2Settings, deps: { state: ConnectorState; sealer: Sealer | undefined; logger: Logger }) {
    this.#auth = auth;
    this.#endpoint = providerEndpoint(auth);
    this.#state = deps.state;
    this.#sealer = deps.sealer;
    this.#logger = deps.logger;
  }

  /** When the token in hand expires (ms since the epoch), for a client that asks. */
  get expiresAt(): number {
    return this.#access?.expiresAt ?? 0;
  }

  /** A token good for at least a minute; `renew`: the last one was refused, get another. */
  async accessToken(renew = false): Promise<string> {
    if (!renew && this.#access !== undefined && this.#access.expiresAt - EARLY_MS > Date.now()) return this.#access.token;
    if (this.#failure !== undefined && Date.now() < this.#failure.until) throw this.#failure.error;
    this.#pending ??= this.#refresh().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #refresh(): Promise<string> {
    const refreshToken = await this.#currentRefreshToken();
    const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: this.#auth.client_id as string, refresh_token: refreshToken });
    if (this.#auth.client_secret !== undefined) form.set('client_secret', this.#auth.client_secret);
    if (this.#endpoint.scope !== '') form.set('scope', this.#endpoint.scope);
    let answer: { status: number; body: Record<string, unknown> | undefined };
    try {
      const res = await fetch(this.#endpoint.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await res.text();
      let body: Record<string, unknown> | undefined;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = undefined;
      }
      answer = { status: res.status, body };
    } catch (err) {
      throw this.#failed(`the ${this.#auth.provider} token endpoint could not be reached: ${(err as Error).message}`);
    }
    const { status, body } = answer;
    if (status < 200 || status > 299 || typeof body?.access_token !== 'string') {
      const said = typeof body?.error === 'string' ? `${body.error}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${status}`;
      throw this.#failed(`the ${this.#auth.provider} token endpoint refused the refresh: ${said.slice(0, 300)}`);
    }
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in ?? 3600) || 3600;
    this.#access = { token: body.access_token, expiresAt: Date.now() + expiresIn * 1000 };
    if (typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken) await this.#keep(body.refresh_token);
    this.#failure = undefined;
    Object.assign(this.status, { ok: true, refreshed_at: new Date().toISOString(), last_error: null });
    this.#logger.debug({ expires_in: expiresIn, provider: this.#auth.provider }, 'OAuth2 access token refreshed');
    return body.access_token;
  }

  #failed(message: string): OAuth2RefreshError {
    const error = new OAuth2RefreshError(message);
    const count = (this.#failure?.count ?? 0) + 1;
    this.#failure = { error, count, until: Date.now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (count - 1)) };
    Object.assign(this.status, { ok: false, last_error: message });
    this.#logger.warn({ provider: this.#auth.provider, failures: count }, message);
    return error;
  }

  /** The rotated refresh token (memory, then the sealed one in the store) when it grew from the configured one. */
  async #currentRefreshToken(): Promise<string> {
    const configured = this.#auth.refresh_token as string;
    if (this.#rotated !== undefined) return this.#rotated;
    const stored = await this.#state.get<StoredRefresh>(stateKey(configured));
    if (stored === undefined || stored.from !== sha256(configured) || this.#sealer === undefined) return configured;
    try {
      return (this.#rotated = this.#sealer.open(stored.sealed));
    } catch {
      this.#logger.warn('the stored OAuth2 refresh token does not open with store.encryption_key (changed?); using the configured one');
      return configured;
    }
  }

  async #keep(rotated: string): Promise<void> {
    this.#rotated = rotated;
    if (this.#sealer === undefined) {
      if (!this.#warnedNoKey) this.#logger.warn('the provider rotated the OAuth2 refresh token; without store.encryption_key it is kept in memory only');
      this.#warnedNoKey = true;
      return;
    }
    await this.#state.set(stateKey(this.#auth.refresh_token as string), { sealed: this.#sealer.seal(rotated), from: sha256(this.#auth.refresh_token as string) } satisfies StoredRefresh);
  }
}
