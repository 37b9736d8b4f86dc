/**
 * Where a command reaches the gateway its settings describe: `server.host`
 * and `server.port`, with a wildcard address asked on loopback (a gateway
 * listening on 0.0.0.0 or :: answers on 127.0.0.1), an IPv6 address in
 * brackets. `health`, `listen` and `trigger` use it.
 */
import type { Settings } from '../config/schema.ts';
import { UsageError } from './errors.ts';

/** The host to connect to for a listening address. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** `http://host:port` of the gateway of these settings (no trailing slash). */
export function gatewayBaseUrl(settings: Pick<Settings, 'server'>, host?: string, port?: number): string {
  const p = port ?? settings.server.port;
  if (p === 0) throw new UsageError('server.port is 0 (the gateway picks a free port at start): give the gateway\'s address with --url');
  return `http://${connectHost(host ?? settings.server.host)}:${p}`;
}
