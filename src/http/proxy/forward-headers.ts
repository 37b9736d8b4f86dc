/**
 * Which headers cross the proxy: the hop-by-hop ones never; towards the
 * platform the gateway's Authorization, the body length and X-Forwarded-*
 * are set by the gateway.
 */
import type { IncomingHttpHeaders } from 'node:http';

type Headers = Record<string, string | string[] | undefined>;

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers',
  'transfer-encoding', 'upgrade', 'host', 'content-length',
]);

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

export function upstreamHeaders(input: UpstreamHeaderInput): Record<string, string | string[]> {
  const out = withoutHopByHop(input.headers, (name) => name === 'authorization' || name.startsWith('x-forwarded-'));
  if (input.authorization !== undefined) out.authorization = input.authorization;
  if (input.contentLength !== undefined) out['content-length'] = String(input.contentLength);
  const prior = input.headers['x-forwarded-for'];
  out['x-forwarded-for'] = prior ? `${String(prior)}, ${input.seen.peer}` : input.seen.peer;
  out['x-forwarded-proto'] = input.seen.proto;
  out['x-forwarded-host'] = input.seen.host;
  return out;
}

export function downstreamHeaders(headers: Headers): Record<string, string | string[]> {
  return withoutHopByHop(headers, () => false);
}

function withoutHopByHop(headers: Headers, drop: (name: string) => boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || drop(name)) continue;
    out[name] = value;
  }
  return out;
}
