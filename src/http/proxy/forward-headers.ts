/**
 * Which headers cross the proxy. Towards the platform: the caller's headers
 * minus the hop-by-hop ones, minus every header the caller's `Connection`
 * names (RFC 9110 §7.6.1), minus the method overrides (a platform honouring
 * them would run a method the allow-list did not check), minus the caller's
 * own forwarding claims (`Forwarded`, `X-Forwarded-*`, `X-Real-IP`); then the
 * gateway's Authorization and body length, and `Forwarded` /
 * `X-Forwarded-For/-Proto/-Host` from what the gateway itself saw. Back to the
 * caller: the platform's headers minus the hop-by-hop ones and those its
 * `Connection` names; its `Content-Length` is kept (the body passes
 * unchanged, so the caller gets it unchunked).
 *
 * Each direction is one pass over the headers, against one set of names.
 */
import type { IncomingHttpHeaders } from 'node:http';

type Headers = Record<string, string | string[] | undefined>;

const HOP_BY_HOP = [
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers',
  'transfer-encoding', 'upgrade', 'host',
];

/** Never taken from the caller: the platform gets the gateway's values, or none. */
const CALLER_MAY_NOT_SET = ['authorization', 'x-http-method-override', 'x-http-method', 'x-method-override', 'forwarded', 'x-real-ip'];

/** Dropped from the caller's headers (`x-forwarded-*` apart); the body length is the gateway's. */
const NOT_UPSTREAM = new Set([...HOP_BY_HOP, 'content-length', ...CALLER_MAY_NOT_SET]);
const NOT_DOWNSTREAM = new Set(HOP_BY_HOP);

/** What the gateway saw of the request: the peer's address, the scheme and the Host it was sent to. */
export interface SeenBy {
  peer: string;
  proto: string;
  host: string;
}

export interface UpstreamHeaderInput {
  headers: IncomingHttpHeaders;
  authorization: string | undefined;
  /** The body's length when the gateway knows it (a checked body, or the caller's Content-Length). */
  contentLength: number | string | undefined;
  seen: SeenBy;
}

/** The headers for the platform, as undici takes them: a flat list of names and values. */
export function upstreamHeaders(input: UpstreamHeaderInput): string[] {
  const { headers } = input;
  const listed = connectionListed(headers.connection);
  const out: string[] = [];
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || NOT_UPSTREAM.has(name) || name.startsWith('x-forwarded-') || (listed !== undefined && listed.has(name))) continue;
    if (typeof value === 'string') out.push(name, value);
    else for (const v of value) out.push(name, v);
  }
  if (input.authorization !== undefined) out.push('authorization', input.authorization);
  if (input.contentLength !== undefined) out.push('content-length', String(input.contentLength));
  const { peer, proto, host } = input.seen;
  out.push(
    'x-forwarded-for', peer,
    'x-forwarded-proto', proto,
    'x-forwarded-host', host,
    'forwarded', `for=${peer.includes(':') ? `"[${peer}]"` : peer};host=${quoted(host)};proto=${proto}`,
  );
  return out;
}

/** The platform's answer headers for the caller. */
export function downstreamHeaders(headers: Headers): Record<string, string | string[]> {
  const listed = connectionListed(headers.connection);
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || NOT_DOWNSTREAM.has(name) || (listed !== undefined && listed.has(name))) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The header names a `Connection` header lists, lower-cased; undefined when it
 * lists none beyond the hop-by-hop ones (`keep-alive`, `close`: the common case).
 */
function connectionListed(connection: string | string[] | undefined): Set<string> | undefined {
  if (connection === undefined || connection === 'keep-alive' || connection === 'Keep-Alive') return undefined;
  const values = typeof connection === 'string' ? [connection] : connection;
  let listed: Set<string> | undefined;
  for (const value of values) {
    for (const token of value.split(',')) {
      const name = token.trim().toLowerCase();
      if (name === '' || name === 'keep-alive' || name === 'connection') continue;
      (listed ??= new Set()).add(name);
    }
  }
  return listed;
}

/** An RFC 7239 quoted-string; the last one made is kept (a gateway is mostly called by one Host). */
let lastQuoted = { value: '', quoted: '""' };
function quoted(value: string): string {
  if (value !== lastQuoted.value) lastQuoted = { value, quoted: `"${value.replace(/["\\]/g, '\\$&')}"` };
  return lastQuoted.quoted;
}
