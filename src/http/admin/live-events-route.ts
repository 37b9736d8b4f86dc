/**
 * `GET /admin/api/events`: the gateway's live feed (src/base/live-feed.ts) as
 * Server-Sent Events, for `threadgate listen` and the admin page's live view.
 * The admin token is required, as for the rest of the API.
 *
 *   ?connector=desk,mail   only these connectors
 *   ?events=webhook,delivery   only these kinds (webhook, intake, delivery, platform)
 *   ?raw=true              webhook events carry their raw body and stored headers (to forward them)
 *   ?max=1000              events held for this reader while it is behind (10–10 000)
 *
 * Each event is `event: <kind>`, `id: <seq>`, `data: <JSON>`; a reader that
 * fell behind gets `event: gap` with `{ lost }` before the events after the
 * loss. The socket is written only as fast as it drains: the feed drops what
 * this reader cannot take, so a slow reader never slows the gateway. A
 * comment line every 15 s keeps proxies from closing an idle stream.
 */
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LIVE_KINDS, type LiveFeed, type LiveKind } from '../../base/live-feed.ts';
import { API_PREFIX } from './openapi.ts';
import { parseInput } from './route-table.ts';

const KEEP_ALIVE_MS = 15_000;

const list = (what: string) =>
  z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p !== ''))
    .optional()
    .meta({ description: what });

export const LiveEventsQuery = z.strictObject({
  connector: list('Only these connectors (comma-separated).'),
  events: list(`Only these kinds (comma-separated): ${LIVE_KINDS.join(', ')}.`).refine((kinds) => kinds === undefined || kinds.every((k) => (LIVE_KINDS as readonly string[]).includes(k)), {
    error: `expected kinds among ${LIVE_KINDS.join(', ')}`,
  }),
  raw: z.enum(['true', 'false']).optional().meta({ description: 'Webhook events carry their raw body and headers.' }),
  max: z.coerce.number().int().min(10).max(10_000).optional().meta({ description: 'Events held while the reader is behind.' }),
});

export const LIVE_EVENTS_PATH = `${API_PREFIX}/events`;

/** Registers the stream in `scope` (which checks the admin token). */
export function registerLiveEvents(scope: FastifyInstance, feed: LiveFeed): void {
  scope.get(LIVE_EVENTS_PATH, async (request, reply) => {
    const query = parseInput(LiveEventsQuery, request.query ?? {}, 'query');
    const subscription = feed.subscribe({
      connectors: query.connector,
      kinds: query.events as LiveKind[] | undefined,
      raw: query.raw === 'true',
      ...(query.max !== undefined ? { max: query.max } : {}),
    });
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    const ended = () => {
      clearInterval(keepAlive);
      subscription.close();
    };
    res.once('close', ended);
    // A reader that stopped reading holds this write until it reads, leaves, or the gateway stops (the feed ends).
    const write = async (chunk: string): Promise<void> => {
      if (!res.write(chunk) && !res.destroyed) await Promise.race([once(res, 'drain'), once(res, 'close'), subscription.ended]);
    };
    try {
      await write(`event: ready\ndata: ${JSON.stringify({ kinds: query.events ?? LIVE_KINDS, connectors: query.connector ?? null })}\n\n`);
      while (!res.destroyed) {
        const events = await subscription.next();
        if (events.length === 0) break; // the feed closed: the gateway stops
        for (const event of events) await write(`event: ${event.kind}\n${event.seq ? `id: ${event.seq}\n` : ''}data: ${JSON.stringify(event)}\n\n`);
      }
    } finally {
      ended();
      // Whatever a stalled reader has not taken is dropped: the stop must not wait for it.
      if (res.writableNeedDrain) res.destroy();
      else if (!res.destroyed) res.end();
    }
  });
}
