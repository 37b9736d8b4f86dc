/**
 * The apps (OAuth clients) the sandbox knows, registered through the control
 * API: an app ID (the client_id, a UUID), a secret for the token endpoint and
 * the allowed redirect URIs.
 *
 * Spec 01 requires https redirect URIs. The sandbox also allows plain http to
 * a loopback host (127.0.0.0/8, [::1], localhost), so apps under development
 * and tests can sign in without certificates; the control API says so in its
 * answer. A disabled app stands for the spec's "unrecognized internal client":
 * its requests are answered with invalid_client.
 */
import { randomBytes, randomUUID } from 'node:crypto';

export interface AppRecord {
  clientId: string;
  secret: string;
  name: string;
  /** Exact strings; authorize compares redirect_uri to them character for character. */
  redirectUris: string[];
  enabled: boolean;
  createdAt: number;
}

export interface NewApp {
  clientId?: string;
  secret?: string;
  name: string;
  redirectUris: string[];
  enabled?: boolean;
}

/** Why a redirect URI is refused, or undefined when it is allowed; `loopbackHttp` flags the sandbox-only case. */
export function checkRedirectUri(value: string): { problem?: string; loopbackHttp: boolean } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: 'Enter an absolute URL.', loopbackHttp: false };
  }
  if (url.hash !== '' || value.includes('#')) return { problem: 'A redirect URI may not have a fragment.', loopbackHttp: false };
  if (url.username !== '' || url.password !== '') return { problem: 'A redirect URI may not carry credentials.', loopbackHttp: false };
  if (url.protocol === 'https:') return { loopbackHttp: false };
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return { loopbackHttp: true };
  return { problem: 'The https scheme is required (plain http only to a loopback host in the sandbox).', loopbackHttp: false };
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

export class AppRegistry {
  private readonly apps = new Map<string, AppRecord>();

  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  register(input: NewApp): AppRecord {
    const app: AppRecord = {
      clientId: input.clientId ?? randomUUID(),
      secret: input.secret ?? randomBytes(24).toString('base64url'),
      name: input.name,
      redirectUris: [...input.redirectUris],
      enabled: input.enabled ?? true,
      createdAt: this.now(),
    };
    this.apps.set(app.clientId, app);
    return app;
  }

  has(clientId: string): boolean {
    return this.apps.has(clientId);
  }

  get(clientId: string): AppRecord | undefined {
    return this.apps.get(clientId);
  }

  list(): AppRecord[] {
    return [...this.apps.values()];
  }

  /** The same app with some fields replaced. */
  update(clientId: string, change: Partial<Pick<AppRecord, 'name' | 'redirectUris' | 'enabled'>>): AppRecord | undefined {
    const app = this.apps.get(clientId);
    if (app === undefined) return undefined;
    Object.assign(app, change);
    return app;
  }

  delete(clientId: string): boolean {
    return this.apps.delete(clientId);
  }

  allowsRedirect(app: AppRecord, redirectUri: string): boolean {
    return app.redirectUris.includes(redirectUri);
  }
}
