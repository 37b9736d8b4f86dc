/**
 * A floor of `npm run bench:proxy`: the least a Node.js proxy can do — a bare
 * `node:http` server handing each request to an undici Pool and the answer
 * straight back (bench/proxy/floor-forward.ts), with no checks at all: no key, no
 * allow-list, no route table, no log, no metrics, no framework. Prints its
 * URL as one line on stdout; SIGTERM closes it and exits.
 *   node bench/proxy/bare-proxy.ts <upstream-url>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { forwardBare } from './floor-forward.ts';

const upstreamUrl = process.argv[2];
if (!upstreamUrl) throw new Error('usage: node bench/proxy/bare-proxy.ts <upstream-url>');
const pool = new Pool(upstreamUrl, { connections: 64 });
const server = createServer((req, res) => forwardBare(pool, req, res));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.close().then(() => process.exit(0)));
});
