/**
 * The counterpart's HTTP server: a real server on port 0 that answers the
 * Bot API's two kinds of address (https://core.telegram.org/bots/api#making-requests,
 * #getfile):
 *
 *   GET|POST /bot<token>/<method>         → {"ok": true, "result": …[, "description"]} or a failure (bot-errors.ts)
 *   GET      /file/bot<token>/<file_path> → the file's bytes (a path getFile issued), else 404
 *
 * Method names are case-insensitive, as Telegram's are. A token other than
 * the bot's is 401 "Unauthorized"; an unknown method 404 "Not Found". A test
 * may order failures (`failures`: the next calls of a method answer a given
 * status and description) and floods (flood-limits.ts). Every call is
 * recorded as it arrives — its method, parameters (files by name and
 * size), then its status, description and time — but never the token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { notFound, TgError, unauthorized } from './bot-errors.ts';
import { METHODS, type Bot } from './bot-methods.ts';
import { readParams } from './bot-params.ts';

export interface RecordedCall {
  /** As asked (`getUpdates`), or `file` for a download. */
  method: string;
  params: Record<string, string>;
  /** 0 while it is not answered yet (a long poll waiting). */
  status: number;
  description: string | undefined;
  /** The machine's time it arrived (ms). */
  receivedAt: number;
  /** The machine's time it was answered (ms); 0 while it is not. */
  at: number;
}

export interface OrderedFailure {
  method: string;
  status: number;
  description: string;
  times: number;
  /** Calls of the method to let through first. */
  after: number;
}

export interface BotServer {
  url: string;
  requests: RecordedCall[];
  failures: OrderedFailure[];
  close(): Promise<void>;
}

export async function startBotServer(bot: Bot): Promise<BotServer> {
  const requests: RecordedCall[] = [];
  const failures: OrderedFailure[] = [];
  const token = bot.state.token;

  const server: Server = createServer((req, res) => {
    // The caller hanging up ends a long poll it no longer waits for.
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://telegram');
      const call = /^\/bot([^/]*)\/([A-Za-z]+)$/.exec(url.pathname);
      const file = /^\/file\/bot([^/]*)\/(.+)$/.exec(url.pathname);
      const method = call?.[2] ?? (file ? 'file' : url.pathname.slice(0, 40));
      // Recorded as it arrives (a long poll is seen while it waits), answered below.
      const record: RecordedCall = { method, params: {}, status: 0, description: undefined, receivedAt: Date.now(), at: 0 };
      requests.push(record);
      const answered = (status: number, description: string | undefined) => Object.assign(record, { status, description, at: Date.now() });
      try {
        if (req.method !== 'GET' && req.method !== 'POST') throw notFound();
        if (file) {
          if (file[1] !== token) throw unauthorized();
          const found = bot.state.files.get(bot.state.paths.get(decodeURIComponent(file[2]!)) ?? '');
          if (found === undefined) throw notFound();
          answered(200, undefined);
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(found.content.length) }).end(found.content);
          return;
        }
        if (!call) throw notFound();
        if (call[1] !== token) throw unauthorized();
        const handler = METHODS[method.toLowerCase()];
        if (handler === undefined) throw notFound();
        const failure = failures.find((f) => f.times > 0 && f.method.toLowerCase() === method.toLowerCase());
        if (failure && failure.after > 0) failure.after -= 1;
        else if (failure) {
          failure.times -= 1;
          throw new TgError(failure.status, failure.description);
        }
        bot.flood.checkOrdered(method);
        const read = await readParams(url.searchParams, req.headers['content-type'], body);
        record.params = read.summary();
        const answer = await handler({ params: read, gone: gone.signal }, bot);
        answered(200, answer.description);
        if (res.destroyed) return;
        const json = JSON.stringify({ ok: true, result: answer.result, ...(answer.description ? { description: answer.description } : {}) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(json);
      } catch (err) {
        if (!(err instanceof TgError)) throw err;
        answered(err.status, err.description);
        if (!res.writableEnded && !res.destroyed) res.writeHead(err.status, { 'content-type': 'application/json' }).end(JSON.stringify(err.body()));
      }
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 500, description: `Internal Server Error: ${String(err)}` }));
      else res.destroy();
    });
  });
  // Its connections never hold the test process (the contract suite counts what a connector leaves open).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failures,
    close: async () => {
      bot.queue.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
