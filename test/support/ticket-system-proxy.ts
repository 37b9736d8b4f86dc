/**
 * A real HTTP proxy in front of the run's Redmine or Request Tracker that a
 * test can slow down or take down: `delayMs` holds every answer that long (a
 * slow system, so a gateway can be stopped in the middle of a poll round);
 * `down` closes every connection without an answer (unreachable);
 * `dropPutAnswers` and `dropPostAnswers` let that many PUTs or POSTs through
 * and then close the connection instead of answering (the note was stored,
 * the gateway never heard); `fail` answers 500 without forwarding to `times`
 * requests whose "METHOD /path" matches (one ticket the system fails on);
 * `stripDate` removes the `Date` header;
 * `onAnswer` runs after the system answered a request and before the answer
 * is passed on (to change it between two page requests). The system itself,
 * shared by every test, is never stopped.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { onTestFinished } from 'vitest';

export interface TicketSystemProxy {
  url: string;
  delayMs: number;
  down: boolean;
  dropPutAnswers: number;
  dropPostAnswers: number;
  fail: { match: RegExp; times: number } | undefined;
  stripDate: boolean;
  onAnswer: ((method: string, url: string, body: string) => Promise<void> | void) | undefined;
  /** Requests forwarded so far. */
  forwarded: number;
}

export async function startTicketSystemProxy(target: string): Promise<TicketSystemProxy> {
  const state: TicketSystemProxy = { url: '', delayMs: 0, down: false, dropPutAnswers: 0, dropPostAnswers: 0, fail: undefined, stripDate: false, onAnswer: undefined, forwarded: 0 };
  const server = createServer((req, res) => {
    if (state.down) return void req.socket.destroy();
    void (async () => {
      const body = await readBody(req);
      if (state.fail && state.fail.times > 0 && state.fail.match.test(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`)) {
        state.fail.times -= 1;
        res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal error</h1>');
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, value);
      }
      const upstream = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body: body.length > 0 ? body : undefined, redirect: 'manual' });
      const answer = Buffer.from(await upstream.arrayBuffer());
      state.forwarded += 1;
      await state.onAnswer?.(req.method ?? 'GET', req.url ?? '/', answer.toString('utf8'));
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.down) return void req.socket.destroy();
      if (req.method === 'PUT' && state.dropPutAnswers > 0) {
        state.dropPutAnswers -= 1;
        return void req.socket.destroy();
      }
      if (req.method === 'POST' && state.dropPostAnswers > 0) {
        state.dropPostAnswers -= 1;
        return void req.socket.destroy();
      }
      const out: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!['transfer-encoding', 'connection', 'content-encoding', 'content-length'].includes(name)) out[name] = value;
      });
      if (state.stripDate) {
        delete out.date;
        res.sendDate = false;
      }
      res.writeHead(upstream.status, out).end(answer);
    })().catch(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
