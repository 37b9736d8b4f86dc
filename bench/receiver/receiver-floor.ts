/**
 * The floor of a receiver, for `npm run bench:receiver` and
 * `npm run bench:connector-intake` (case `floor`): the least a receiver can do
 * and still keep the gateway's promise, written straight on Fastify,
 * node:crypto and better-sqlite3, with none of the gateway:
 *
 * - the raw body's signature checked by the gateway's own checks (the
 *   platform's scheme, src/platform/signature.ts; or Standard Webhooks for a
 *   connector's intake, the webhook connector's), then `JSON.parse`;
 * - one row a request in a table with a unique event id (the dedup), stored
 *   in groups as the gateway's store does it: the writes asked for while the
 *   last group was written and synced in one `BEGIN IMMEDIATE … COMMIT`, each
 *   answered (with its row id) only after that COMMIT and then an `fdatasync`
 *   of the log in libuv's pool (`synchronous=full` in WAL mode without the
 *   event loop waiting); no checkpoint during the run (the gateway runs them
 *   off the event loop);
 * - each stored row then "delivered" (nothing sent) and marked so, a write of
 *   the same groups.
 *
 * No job table, no order per thread, no retries, no logs, no metrics, no
 * validation beyond the signature, no platform post: what is left is the
 * HTTP, the signature, the JSON and the two durable writes. Beside the bare route
 * it shows how far a receiver of the gateway's design (one process, SQLite,
 * every answer after its fsync) can go on this machine at all.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';
import { HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, inboundVerifier } from '../../connectors/webhook/standard-webhooks.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook } from '../../src/platform/signature.ts';
import { groupCommitter } from '../support/floor-committer.ts';

export interface ReceiverFloor {
  url: string;
  /** Rows stored, and of them delivered (each read from the file); the groups committed. */
  counts(): { stored: number; delivered: number; groups: number };
  /** Resolves when every stored row is marked delivered. */
  drained(): Promise<void>;
  close(): Promise<void>;
}

/** What a floor checks and stores: the signature scheme, and the event id and thread of a parsed body. */
export interface FloorKind {
  /** The route the load is sent to. */
  path: string;
  /** The 2xx status answered. */
  status: number;
  signed(headers: Record<string, string | string[] | undefined>, raw: Buffer): boolean;
  keyOf(body: unknown): { eventId: string; threadId: string };
}

const single = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

/** The platform's webhooks, checked as the receiver checks them (src/platform/signature.ts). */
export function platformWebhooks(secret: string): FloorKind {
  return {
    path: '/',
    status: 200,
    signed: (headers, raw) => {
      try {
        verifyWebhook({ secrets: [secret], rawBody: raw, signature: single(headers[SIGNATURE_HEADER]), timestamp: single(headers[TIMESTAMP_HEADER]) });
        return true;
      } catch {
        return false;
      }
    },
    keyOf: (body) => {
      const event = body as { thread_id: string; message: { id: string } };
      return { eventId: event.message.id, threadId: event.thread_id };
    },
  };
}

/** A webhook connector's inbound messages, Standard Webhooks signed, checked by the connector's own check. */
export function standardWebhooks(whsec: string): FloorKind {
  const verify = inboundVerifier(whsec);
  const path = '/connectors/hook/messages';
  return {
    path,
    status: 202,
    signed: (headers, raw) => {
      const names = [HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE];
      try {
        verify({ method: 'POST', path, params: {}, query: {}, headers: Object.fromEntries(names.map((n) => [n, single(headers[n])])), rawBody: raw });
        return true;
      } catch {
        return false;
      }
    },
    keyOf: (body) => {
      const message = body as { thread_id: string; messages: { message_id: string }[] };
      return { eventId: (message.messages[0] as { message_id: string }).message_id, threadId: message.thread_id };
    },
  };
}

/** The floor's store: one table, the gateway's group commit and sync, each stored row then marked delivered. */
export interface FloorStore {
  /** Stores a row (its event id unique), resolved after its group's COMMIT and sync; a new row is then marked delivered. */
  store(row: { eventId: string; threadId: string; body: string }): Promise<number>;
  counts: ReceiverFloor['counts'];
  drained: ReceiverFloor['drained'];
  close(): void;
}

export function openFloorStore(dir: string): FloorStore {
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  // What `synchronous = FULL` does in WAL mode (a sync of the log after each commit), with the sync in libuv's pool.
  db.pragma('synchronous = NORMAL');
  // No checkpoints during the run (the gateway runs them on a connection of their own, off the event loop).
  db.pragma('wal_autocheckpoint = 0');
  db.exec(`create table events (id integer primary key, event_id text not null unique, thread_id text, body text not null, delivered integer not null default 0)`);
  const insert = db.prepare('insert into events (event_id, thread_id, body) values (?, ?, ?) on conflict (event_id) do nothing returning id');
  const byEvent = db.prepare<[string], { id: number }>('select id from events where event_id = ?');
  const markDelivered = db.prepare('update events set delivered = 1 where id = ?');
  const count = db.prepare<[], { stored: number; delivered: number }>('select count(*) as stored, coalesce(sum(delivered), 0) as delivered from events');

  const walFd = openSync(join(dir, 'floor.db-wal'), 'r');
  let pending = 0;
  let onDrained: (() => void) | undefined;
  const committer = groupCommitter(db, walFd);
  const deliver = (id: number) => {
    pending++;
    // A failed delivery write leaves its row unmarked: the benchmark's check (delivered = stored) reports it.
    const done = () => {
      if (--pending === 0) onDrained?.();
    };
    void committer.write(() => markDelivered.run(id)).then(done, done);
  };
  return {
    store: async (row) => {
      const { id, fresh } = await committer.write(() => {
        const inserted = insert.get(row.eventId, row.threadId, row.body) as { id: number } | undefined;
        return { id: inserted?.id ?? (byEvent.get(row.eventId) as { id: number }).id, fresh: inserted !== undefined };
      });
      if (fresh) deliver(id);
      return id;
    },
    counts: () => ({ ...(count.get() as { stored: number; delivered: number }), groups: committer.groups }),
    drained: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onDrained = resolve))),
    close: () => {
      db.close();
      closeSync(walFd);
    },
  };
}

/** The floor's one route: the signature checked, the body parsed, the row stored by `store`, its id answered. */
export function floorApp(kind: FloorKind, store: FloorStore['store']): FastifyInstance {
  const app: FastifyInstance = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post(kind.path, async (request, reply) => {
    const raw = request.body as Buffer;
    if (!kind.signed(request.headers, raw)) return reply.code(401).send({ error: 'signature' });
    const text = raw.toString('utf8');
    const { eventId, threadId } = kind.keyOf(JSON.parse(text));
    return reply.code(kind.status).send({ delivery_id: await store({ eventId, threadId, body: text }) });
  });
  return app;
}

/** The floor on `openStore`'s store: openFloorStore's by default, or one with a job queue (floor-job-store.ts). */
export async function startReceiverFloor(dir: string, kind: FloorKind, openStore: (dir: string) => FloorStore = openFloorStore): Promise<ReceiverFloor> {
  const store = openStore(dir);
  const app = floorApp(kind, store.store);
  const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}${kind.path}`;
  return {
    url,
    counts: store.counts,
    drained: store.drained,
    close: async () => {
      await app.close();
      store.close();
    },
  };
}
