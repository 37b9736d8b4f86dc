/**
 * Who may call the proxy: `proxy.clients`, each with the SHA-256 of its key
 * (compared in constant time), an allow-list of methods and path patterns,
 * and a rate limit (a token bucket per client, refilled continuously).
 * `<organization_id>` in an allow-list matches only the configured
 * organisation.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ProxyClient } from '../../config/schema.ts';
import { compilePattern, matchPattern, splitPath, type PathPattern } from './path-patterns.ts';

export interface Caller {
  name: string;
  allow: { methods: string[]; paths: PathPattern[] }[];
  ratePerMinute: number;
  digest: Buffer;
}

export type Admission =
  | { ok: true; caller: Caller }
  | { ok: false; status: 401 | 403 | 429; code: 'TG_PROXY_UNAUTHORIZED' | 'TG_PROXY_FORBIDDEN' | 'TG_PROXY_RATE_LIMITED'; message: string; retryAfterSeconds?: number };

export class ProxyCallers {
  readonly #callers: Caller[];
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;
  readonly #fixed: Readonly<Record<string, string>>;

  constructor(clients: readonly ProxyClient[], organizationId: string, now: () => number = Date.now) {
    this.#now = now;
    this.#fixed = { organization_id: organizationId };
    this.#callers = clients.map((c) => ({
      name: c.name,
      allow: c.allow.map((a) => ({ methods: a.methods, paths: a.paths.map(compilePattern) })),
      ratePerMinute: c.rate_per_minute,
      digest: Buffer.from(c.key_sha256, 'hex'),
    }));
  }

  get count(): number {
    return this.#callers.length;
  }

  /** Checks the presented Authorization, then the allow-list, then the rate limit. */
  admit(authorization: string | undefined, method: string, path: string): Admission {
    const key = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    if (key === undefined) return { ok: false, status: 401, code: 'TG_PROXY_UNAUTHORIZED', message: 'send the gateway key as Authorization: Bearer <key>' };
    const presented = createHash('sha256').update(key, 'utf8').digest();
    let found: Caller | undefined;
    for (const caller of this.#callers) if (timingSafeEqual(presented, caller.digest) && !found) found = caller; // every one compared
    if (!found) return { ok: false, status: 401, code: 'TG_PROXY_UNAUTHORIZED', message: 'unknown gateway key' };
    const segments = splitPath(path);
    const allowed = found.allow.some((a) => (a.methods.includes('*') || a.methods.includes(method)) && a.paths.some((p) => matchPattern(p, segments, this.#fixed)));
    if (!allowed) return { ok: false, status: 403, code: 'TG_PROXY_FORBIDDEN', message: `client ${found.name} may not ${method} ${path}` };
    const wait = this.#take(found);
    if (wait > 0) return { ok: false, status: 429, code: 'TG_PROXY_RATE_LIMITED', message: `client ${found.name} is over ${found.ratePerMinute} requests a minute`, retryAfterSeconds: Math.ceil(wait / 1000) };
    return { ok: true, caller: found };
  }

  /** 0 when a token was taken, else the ms until the next one. */
  #take(caller: Caller): number {
    const now = this.#now();
    const perMs = caller.ratePerMinute / 60_000;
    const bucket = this.#buckets.get(caller.name) ?? { tokens: caller.ratePerMinute, at: now };
    bucket.tokens = Math.min(caller.ratePerMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.#buckets.set(caller.name, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / perMs;
  }
}
