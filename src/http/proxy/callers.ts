/**
 * Who may call the proxy: `proxy.clients`, each with the SHA-256 of its key,
 * an allow-list of methods and path patterns, and a rate limit (a token
 * bucket per client name, refilled continuously). `<organization_id>` in an
 * allow-list matches only the configured organisation.
 *
 * Everything a request is checked against is built once, here: a table from
 * key digest to client (the presented key is hashed once and looked up; a
 * lookup's timing can tell only about the digest, never the key), each
 * allow-list compiled (path-patterns.ts), each bucket held by its client.
 * A keep-alive connection that presents the same Authorization again is not
 * hashed again: the caller found for it is kept with the connection, and
 * compared only with what that same connection sent before.
 */
import { hash } from 'node:crypto';
import type { ProxyClient } from '../../config/schema.ts';
import { allows, compileAllowPattern, splitPath, type AllowPattern } from './path-patterns.ts';

interface Bucket {
  tokens: number;
  at: number;
}

export interface Caller {
  name: string;
  allow: { anyMethod: boolean; methods: ReadonlySet<string>; paths: AllowPattern[] }[];
  ratePerMinute: number;
  bucket: Bucket;
}

export type Admission =
  | { ok: true; caller: Caller }
  | { ok: false; status: 401 | 403 | 429; code: 'TG_PROXY_UNAUTHORIZED' | 'TG_PROXY_FORBIDDEN' | 'TG_PROXY_RATE_LIMITED'; message: string; retryAfterSeconds?: number };

const NO_KEY: Admission = { ok: false, status: 401, code: 'TG_PROXY_UNAUTHORIZED', message: 'send the gateway key as Authorization: Bearer <key>' };
const UNKNOWN_KEY: Admission = { ok: false, status: 401, code: 'TG_PROXY_UNAUTHORIZED', message: 'unknown gateway key' };
const BEARER = /^Bearer\s+(\S+)$/i;

export class ProxyCallers {
  /** SHA-256 of a key (its 32 bytes, one character each) → its client (the first listed, when two share a key). */
  readonly #byDigest = new Map<string, Caller>();
  /** Per connection, the Authorization it presented last and the caller that key belongs to. */
  readonly #byConnection = new WeakMap<object, { authorization: string; caller: Caller }>();
  readonly #now: () => number;
  readonly #count: number;

  constructor(clients: readonly ProxyClient[], organizationId: string, now: () => number = Date.now) {
    this.#now = now;
    this.#count = clients.length;
    const fixed = { organization_id: organizationId };
    const buckets = new Map<string, Bucket>(); // clients of one name share their bucket, as they always did
    for (const c of clients) {
      // Full until first used: `at` so far back that the first refill tops it up whatever the clock says.
      const bucket = buckets.get(c.name) ?? { tokens: c.rate_per_minute, at: Number.NEGATIVE_INFINITY };
      buckets.set(c.name, bucket);
      const caller: Caller = {
        name: c.name,
        allow: c.allow.map((a) => ({
          anyMethod: a.methods.includes('*'),
          methods: new Set(a.methods),
          paths: a.paths.map((p) => compileAllowPattern(p, fixed)),
        })),
        ratePerMinute: c.rate_per_minute,
        bucket,
      };
      const digest = Buffer.from(c.key_sha256, 'hex').toString('binary');
      if (!this.#byDigest.has(digest)) this.#byDigest.set(digest, caller);
    }
  }

  get count(): number {
    return this.#count;
  }

  /**
   * Checks the presented Authorization, then the allow-list, then the rate limit. `segments`: the path's, when
   * already split; `connection`: the request's socket, when the same connection may call again.
   */
  admit(authorization: string | undefined, method: string, path: string, segments: readonly string[] = splitPath(path), connection?: object): Admission {
    const known = connection === undefined ? undefined : this.#byConnection.get(connection);
    let found: Caller | undefined;
    if (known !== undefined && known.authorization === authorization) found = known.caller;
    else {
      const key = keyOf(authorization);
      if (key === undefined) return NO_KEY;
      found = this.#byDigest.get(hash('sha256', key, 'binary'));
      if (!found) return UNKNOWN_KEY;
      if (connection !== undefined) this.#byConnection.set(connection, { authorization: authorization as string, caller: found });
    }
    if (!isAllowed(found, method, segments)) return { ok: false, status: 403, code: 'TG_PROXY_FORBIDDEN', message: `client ${found.name} may not ${method} ${path}` };
    const wait = this.#take(found);
    if (wait > 0) return { ok: false, status: 429, code: 'TG_PROXY_RATE_LIMITED', message: `client ${found.name} is over ${found.ratePerMinute} requests a minute`, retryAfterSeconds: Math.ceil(wait / 1000) };
    return { ok: true, caller: found };
  }

  /** 0 when a token was taken, else the ms until the next one. */
  #take(caller: Caller): number {
    const now = this.#now();
    const perMs = caller.ratePerMinute / 60_000;
    const { bucket } = caller;
    bucket.tokens = Math.min(caller.ratePerMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return (1 - bucket.tokens) / perMs;
  }
}

/** The key of `Bearer <key>` (scheme in any case, one run of white space), else undefined. */
function keyOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return BEARER.exec(authorization)?.[1];
}

function isAllowed(caller: Caller, method: string, segments: readonly string[]): boolean {
  for (const a of caller.allow) {
    if (!a.anyMethod && !a.methods.has(method)) continue;
    for (const p of a.paths) if (allows(p, segments)) return true;
  }
  return false;
}
