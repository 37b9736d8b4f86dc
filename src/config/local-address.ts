/**
 * Which URLs point at an address only this machine (or this network link)
 * can reach: loopback, link-local, unspecified. The settings use it to refuse
 * a `server.public_url` the platform could never call back on.
 */
import { BlockList, isIP } from 'node:net';

export type LocalKind = 'loopback' | 'link-local' | 'unspecified';

function blockList(subnets: [string, number][]): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of subnets) list.addSubnet(net, prefix, isIP(net) === 6 ? 'ipv6' : 'ipv4');
  return list;
}

/** IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) match the IPv4 subnets too. */
const KINDS: [LocalKind, BlockList][] = [
  ['loopback', blockList([['127.0.0.0', 8], ['::1', 128]])],
  ['link-local', blockList([['169.254.0.0', 16], ['fe80::', 10]])],
  ['unspecified', blockList([['0.0.0.0', 8], ['::', 128]])],
];

/** The kind of local address `url`'s host is, or undefined for any other host (or no URL). */
export function localAddressKind(url: string): LocalKind | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback';
  const family = isIP(host);
  if (family === 0) return undefined;
  return KINDS.find(([, list]) => list.check(host, family === 6 ? 'ipv6' : 'ipv4'))?.[0];
}
