/**
 * The forwarding of the benchmark's floor proxies (bare-proxy.ts,
 * fastify-floor-proxy.ts): the request passed to an undici Pool as it came
 * (hop-by-hop headers dropped), the answer written straight back with
 * back-pressure, nothing checked. The least any Node.js proxy on undici does.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher, Pool } from 'undici';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'te', 'trailer', 'upgrade', 'proxy-connection']);

function withoutHopByHop(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name) && headers[name] !== undefined) out[name] = headers[name];
  return out;
}

export function forwardBare(pool: Pool, req: IncomingMessage, res: ServerResponse): void {
  let controller: Dispatcher.DispatchController | undefined;
  const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  res.once('close', () => res.writableFinished || controller?.abort(new Error('the caller left')));
  pool.dispatch(
    { path: req.url ?? '/', method: req.method as Dispatcher.HttpMethod, headers: withoutHopByHop(req.headers), body: bodiless ? null : req },
    {
      onRequestStart: (c) => void (controller = c),
      onResponseStart: (_c, status, headers) => void res.writeHead(status, withoutHopByHop(headers)),
      onResponseData: (c, chunk) => {
        if (res.write(chunk)) return;
        c.pause();
        res.once('drain', () => c.resume());
      },
      onResponseEnd: () => res.end(),
      onResponseError: (_c, err) => (res.headersSent ? res.destroy(err) : res.writeHead(502).end()),
    },
  );
}
