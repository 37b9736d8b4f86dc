/**
 * The upstream of `npm run bench:proxy`, in its own process so that its work
 * does not share a proxy's event loop: a bare `node:http` server.
 *   - any GET: a ~1 KB JSON page of chats (`/api/v5/orgs/<org>/rooms/<room>/chats`);
 *   - a POST whose path ends in `/download/`: `x-bench-bytes` bytes (default
 *     100 MiB) of CSV, written chunk by chunk as the socket drains;
 *   - any other POST (an upload): the body read and dropped, answered with
 *     `{"received": <bytes>}`.
 * Prints its URL as one line on stdout and runs until killed.
 *   node bench/proxy/http-upstream.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const chat = (i: number) => ({
  id: `c1a7d0e2-0000-4000-8000-00000000000${i}`,
  room_id: 'r00m0000-0000-4000-8000-000000000001',
  created_at: '2026-11-22T08:00:00Z',
  is_ended: false,
  visitor_name: 'Visitor '.repeat(10).trim(),
});
const PAGE = Buffer.from(JSON.stringify({ next: null, previous: null, results: Array.from({ length: 5 }, (_, i) => chat(i)) }));
const PAGE_HEADERS = { 'content-type': 'application/json', 'content-length': String(PAGE.length) };
const CHUNK = Buffer.alloc(64 * 1024, 'a,b,c,d\r\n');

const server = createServer((req, res) => {
  if (req.method === 'GET') return void res.writeHead(200, PAGE_HEADERS).end(PAGE);
  if (req.url?.endsWith('/download/')) {
    req.resume();
    const total = Number(req.headers['x-bench-bytes'] ?? 100 * 1024 * 1024);
    res.writeHead(200, { 'content-type': 'text/csv', 'content-length': String(total) });
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        const piece = total - sent >= CHUNK.length ? CHUNK : CHUNK.subarray(0, total - sent);
        sent += piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    return pump();
  }
  let received = 0;
  req.on('data', (chunk: Buffer) => (received += chunk.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received })));
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
