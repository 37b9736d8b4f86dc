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
 *   connector's state (one entry per refresh token it grew from), sealed with the gateway's `store.encryption_key`,
 *   read again at each refresh (so every replica uses the newest), and a
 *   restart does not fall back to one that may be revoked; without a key, in
 *   memory only (said once in the log). The stored one is tied to the
 *   token it grew from: new consent wins over it.
 * - New consent reaches a running gateway two ways, both without a restart:
 *   `threadgate secrets set <connector> imap.auth.refresh_token` (or
 *   `client_secret`; `ctx.secrets`, read at each refresh), or a new value in
 *   the settings file and SIGHUP (`update`: used at once). A value set by
 *   the command is used at the next attempt, within the backoff's minute.
 * - No token, secret or code ever goes to the log or into an error message.
 */
import { createHash } from 'node:crypto';
import type { ConnectorSecrets, ConnectorState, Logger, Sealer } from '../../src/connector/api.ts';
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
/** Per refresh token it grew from (its hash): IMAP and SMTP with grants of their own do not share one. */
const stateKey = (base: string) => `oauth2:refresh-token:${sha256(base).slice(0, 16)}`;

interface StoredRefresh {
  sealed: string;
  /** sha256 of the refresh token (configured, or set by an operator) this one was rotated from. */
  from: string;
}

/** Keys of `auth` a running connector takes from a reload (`update`); anything else needs a restart. */
export const LIVE_AUTH_KEYS = ['client_id', 'client_secret', 'refresh_token', 'token_url', 'scope', 'tenant'] as const;

export interface OAuth2Status {
  ok: boolean;
  refreshed_at: string | null;
  last_error: string | null;
}


export interface OAuth2Deps {
  state: ConnectorState;
  sealer: Sealer | undefined;
  logger: Logger;
  /** Values an operator set with `threadgate secrets set`, and the settings key `auth` sits at (`imap.auth`). */
  secrets?: { store: ConnectorSecrets; at: string };
}

export class OAuth2Tokens {
  #auth: OAuth2Settings;
  #endpoint: { tokenUrl: string; scope: string };
  readonly #state: ConnectorState;
  readonly #sealer: Sealer | undefined;
  readonly #logger: Logger;
  readonly #secrets: OAuth2Deps['secrets'];
  #access: { token: string; expiresAt: number } | undefined;
  /** Without a sealer: the rotated token, with the hash of the one it grew from. */
  #rotated: { token: string; from: string } | undefined;
  #pending: Promise<string> | undefined;
  #failure: { error: OAuth2RefreshError; until: number; count: number } | undefined;
  #warnedNoKey = false;
  readonly status: OAuth2Status = { ok: true, refreshed_at: null, last_error: null };

  constructor(auth: OAuth2Settings, deps: OAuth2Deps) {
    this.#auth = auth;
    this.#endpoint = providerEndpoint(auth);
    this.#state = deps.state;
    this.#sealer = deps.sealer;
    this.#logger = deps.logger;
    this.#secrets = deps.secrets;
  }

  /** The settings in force (for a reload to compare with). */
  get auth(): OAuth2Settings {
    return this.#auth;
  }

  /** New credentials from a reload: used at once, with no backoff left to wait. */
  update(auth: OAuth2Settings): void {
    this.#auth = auth;
    this.#endpoint = providerEndpoint(auth);
    this.#access = undefined;
    this.#failure = undefined;
    this.#logger.info({ provider: auth.provider }, 'OAuth2 credentials replaced by a reload of the settings');
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
    const { token: refreshToken, base } = await this.#currentRefreshToken();
    const clientSecret = (await this.#operatorSet('client_secret', this.#auth.client_secret)) ?? this.#auth.client_secret;
    const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: this.#auth.client_id as string, refresh_token: refreshToken });
    if (clientSecret !== undefined) form.set('client_secret', clientSecret);
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
    if (typeof body.refresh_token === 'string' && body.refresh_token !== refreshToken) await this.#keep(body.refresh_token, base);
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

  /** A value an operator set for `key` of this grant (`threadgate secrets set`), while the settings still hold `configured`. */
  async #operatorSet(key: string, configured: string | undefined): Promise<string | undefined> {
    return this.#secrets === undefined ? undefined : this.#secrets.store.get(`${this.#secrets.at}.${key}`, configured);
  }

  /**
   * The refresh token to use: the one rotated from the base (sealed in the store, else in memory), else the base
   * itself — the operator's (`threadgate secrets set`) while the settings are unchanged since, else the configured.
   */
  async #currentRefreshToken(): Promise<{ token: string; base: string }> {
    const configured = this.#auth.refresh_token as string;
    const base = (await this.#operatorSet('refresh_token', configured)) ?? configured;
    if (this.#sealer === undefined) return { token: this.#rotated?.from === sha256(base) ? this.#rotated.token : base, base };
    const stored = await this.#state.get<StoredRefresh>(stateKey(base));
    if (stored === undefined || stored.from !== sha256(base)) return { token: base, base };
    try {
      return { token: this.#sealer.open(stored.sealed), base };
    } catch {
      this.#logger.warn('the stored OAuth2 refresh token does not open with store.encryption_key (changed?); using the configured one');
      return { token: base, base };
    }
  }

  async #keep(rotated: string, base: string): Promise<void> {
    if (this.#sealer === undefined) {
      this.#rotated = { token: rotated, from: sha256(base) };
      if (!this.#warnedNoKey) this.#logger.warn('the provider rotated the OAuth2 refresh token; without store.encryption_key it is kept in memory only');
      this.#warnedNoKey = true;
      return;
    }
    await this.#state.set(stateKey(base), { sealed: this.#sealer.seal(rotated), from: sha256(base) } satisfies StoredRefresh);
  }
}

/**
 * A reload's new `auth` for a running grant: the changed keys of LIVE_AUTH_KEYS (dotted under `at`) applied to
 * `tokens`, or none when the grant's shape changed (another user, provider or way), which needs a restart.
 */
export function reloadAuth(tokens: OAuth2Tokens | undefined, next: OAuth2Settings | undefined, at: string): string[] {
  const before = tokens?.auth;
  if (tokens === undefined || before === undefined || next?.provider === undefined) return [];
  if (before.user !== next.user || before.provider !== next.provider || next.access_token !== undefined || next.token_command !== undefined) return [];
  const changed = LIVE_AUTH_KEYS.filter((key) => before[key] !== next[key]);
  if (changed.length > 0) tokens.update(next);
  return changed.map((key) => `${at}.${key}`);
}
