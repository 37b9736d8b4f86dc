/**
 * What a watched PostgreSQL connection sends (src/store/postgres/connection-traffic.ts):
 * statements sent within one tick on a pipelined connection leave in one
 * socket write, where node-postgres alone writes each statement's messages on
 * their own (a system call a statement), and each still gets its own answer;
 * and its round trips are counted: statements sent at once are one, the same
 * statements awaited one by one are one each. A statement sent from a tick
 * queued after the first one's (a merger's flush) leaves with it.
 */
import type { Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConnectionTraffic } from '../../src/store/postgres/connection-traffic.ts';
import { postgresDatabase } from '../support/postgres.ts';

const STATEMENTS = 20;

interface Watched {
  client: pg.Client;
  /** Writes its socket made so far. */
  writes: () => number;
  traffic: ConnectionTraffic;
}

/** A pipelined connection, watched or not, and a count of the writes its socket makes. */
async function connection(watched: boolean): Promise<Watched> {
  const client = new pg.Client({ connectionString: await postgresDatabase(), pipeline: true } as pg.ClientConfig);
  await client.connect();
  onTestFinished(() => client.end());
  const traffic = new ConnectionTraffic();
  if (watched) traffic.watch(client as pg.PoolClient);
  type Write = (...args: unknown[]) => unknown;
  const socket = (client as unknown as { connection: { stream: Socket & { _write: Write; _writev: Write } } }).connection.stream;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method].bind(socket);
    socket[method] = (...args: unknown[]) => {
      writes += 1;
      return original(...args);
    };
  }
  return { client, writes: () => writes, traffic };
}

const statement = (client: pg.Client, i: number) => client.query({ name: 'traffic_n', text: 'select $1::int as n', values: [i] }).then((r) => r.rows[0].n as number);

/** `STATEMENTS` prepared statements sent at once; their answers. */
const burst = (client: pg.Client) => Promise.all(Array.from({ length: STATEMENTS }, (_, i) => statement(client, i)));

describe('PostgreSQL: what a watched connection sends', () => {
  it('sends the statements of a tick in one socket write, each answered with its own result, in one round trip', async () => {
    const { client, writes, traffic } = await connection(true);
    const answers = await burst(client);
    expect(answers).toEqual(Array.from({ length: STATEMENTS }, (_, i) => i));
    expect(writes()).toBe(1);
    expect(traffic.roundTrips).toBe(1);
    // The next tick's statements: one write more.
    await burst(client);
    expect(writes()).toBe(2);
    expect(traffic.roundTrips).toBe(2);
  });

  it("sends a BEGIN with the statements a tick queued after it sends (a merger's flush): one write, one round trip", async () => {
    const { client, writes, traffic } = await connection(true);
    const begun = client.query('begin');
    // As statement-merger.ts does: the merged statement is sent from a tick queued after the BEGIN went out.
    const merged = new Promise<number[]>((resolve, reject) => process.nextTick(() => burst(client).then(resolve, reject)));
    await begun;
    expect(await merged).toEqual(Array.from({ length: STATEMENTS }, (_, i) => i));
    await client.query('commit');
    expect(writes()).toBe(2);
    expect(traffic.roundTrips).toBe(2);
  });

  it('counts statements awaited one by one as a round trip each', async () => {
    const { client, traffic } = await connection(true);
    for (let i = 0; i < 5; i++) await statement(client, i);
    expect(traffic.roundTrips).toBe(5);
  });

  it('without it, node-postgres writes each statement on its own', async () => {
    const { client, writes } = await connection(false);
    await burst(client);
    expect(writes()).toBe(STATEMENTS);
  });
});
