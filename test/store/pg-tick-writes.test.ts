/**
 * Statements sent within one tick on a pipelined connection leave in one
 * socket write (src/store/postgres/tick-writes.ts), where node-postgres alone
 * writes each statement's messages on their own; and each still gets its own
 * answer. Guards against a batch's statements costing a system call each.
 */
import type { Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { writeOncePerTick } from '../../src/store/postgres/tick-writes.ts';
import { postgresDatabase } from '../support/postgres.ts';

const STATEMENTS = 20;

/** A pipelined connection, `writeOncePerTick` or not, and a count of the writes its socket makes. */
async function connection(onceATick: boolean): Promise<{ client: pg.Client; writes: () => number }> {
  const client = new pg.Client({ connectionString: await postgresDatabase(), pipeline: true } as pg.ClientConfig);
  await client.connect();
  onTestFinished(() => client.end());
  if (onceATick) writeOncePerTick(client as pg.PoolClient);
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
  return { client, writes: () => writes };
}

/** `STATEMENTS` prepared statements sent at once; their answers. */
const burst = (client: pg.Client) =>
  Promise.all(Array.from({ length: STATEMENTS }, (_, i) => client.query({ name: 'tick_n', text: 'select $1::int as n', values: [i] }).then((r) => r.rows[0].n as number)));

describe('PostgreSQL: statements of one tick in one write', () => {
  it('sends the statements of a tick in one socket write, each answered with its own result', async () => {
    const { client, writes } = await connection(true);
    const answers = await burst(client);
    expect(answers).toEqual(Array.from({ length: STATEMENTS }, (_, i) => i));
    expect(writes()).toBe(1);
    // The next tick's statements: one write more.
    await burst(client);
    expect(writes()).toBe(2);
  });

  it('without it, node-postgres writes each statement on its own', async () => {
    const { client, writes } = await connection(false);
    await burst(client);
    expect(writes()).toBe(STATEMENTS);
  });
});
