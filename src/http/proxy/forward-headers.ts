/**
 * Which headers cross the proxy. Towards the platform: the caller's headers
 * minus the hop-by-hop ones, minus every header the caller's `Connection`
 * names (RFC 9110 §7.6.1), minus the method overrides (a platform honouring
 * them would run a method the allow-list did not check), minus the caller's
 * own forwarding claims (`Forwarded`, `X-Forwarded-*`, `X-Real-IP`); then the
 * gateway's Authorization and body length, and `Forwarded` /
 * `X-Forwarded-For/-Proto/-Host` from what the gateway itself saw. Back to the
 * caller: the platform's headers minus the hop-by-hop ones and those its
 * `Connection` names.
 */
import type { IncomingHttpHeaders } from 'node:http';

type Headers = Record<string, string | string[] | undefined>;

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'trailers',
  'transfer-encoding', 'upgrade', 'host', 'content-length',
]);

/** Never taken from the caller: the platform gets the gateway's values, or none. */
const CALLER_MAY_NOT_SET = new Set([
  'authorization', 'x-http-method-override', 'x-http-method', 'x-method-override', 'forwarded', 'x-real-ip',
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
  const out = withoutHopByHop(input.headers, (name) => CALLER_MAY_NOT_SET.has(name) || name.startsWith('x-forwarded-'));
  if (input.authorization !== undefined) out.authorization = input.authorization;
  if (input.contentLength !== undefined) out['content-length'] = String(input.contentLength);
  const { peer, proto, host } = input.seen;
  out['x-forwarded-for'] = peer;
  out['x-forwarded-proto'] = proto;
  out['x-forwarded-host'] = host;
  out.forwarded = `for=${peer.includes(':') ? `"[${peer}]"` : peer};host=${quoted(host)};proto=${proto}`;
  return out;
}

export function downstreamHeaders(headers: Headers): Record<string, string | string[]> {
  return withoutHopByHop(headers, () => false);
}

/** The headers minus the hop-by-hop ones, those the message's own `Connection` lists, and those `drop` names. */
function withoutHopByHop(headers: Headers, drop: (name: string) => boolean): Record<string, string | string[]> {
  const listed = new Set(
    [headers.connection ?? []]
      .flat()
      .flatMap((value) => value.split(','))
      .map((name) => name.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name) || drop(name)) continue;
    out[name] = value;
  }
  return out;
}

/** An RFC 7239 quoted-string. */
function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}
