/**
 * `node bench/store/pg-driver.bench.ts`: the two well-kept PostgreSQL drivers for
 * Node side by side on a throwaway local cluster (test/support/postgres-server.ts),
 * on the store's write shape — one transaction holding a delivery insert, a
 * job insert and an update (the receiver's accepted webhook) — 50 at a time,
 * each driver with a pool of 10, and on a plain one-row read:
 *   (a) node-postgres (`pg`) with its Pool, through the store's own executor;
 *   (b) postgres.js (`postgres`) with its built-in pool.
 * BENCH_WRITES (default 5,000) transactions each; prints a table.
 */
import pg from 'pg';
import postgres from 'postgres';
import { startPostgres } from '../../test/support/postgres-server.ts';

const WRITES = Number(process.env.BENCH_WRITES ?? 5_000);
const CONCURRENCY = 50;
const POOL = 10;
const SCHEMA = `create table if not exists d (id bigserial primary key, body text not null, job bigint, at bigint not null);
               create table if not exists j (id bigserial primary key, payload text not null, at bigint not null)`;

async function timed(label: string, n: number, one: (i: number) => Promise<unknown>): Promise<{ label: string; perSecond: number }> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < n; i = next++) await one(i);
  }));
  return { label, perSecond: n / ((performance.now() - started) / 1000) };
}

async function nodePostgres(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  await pool.query(SCHEMA);
  const write = await timed('pg: write transactions', WRITES, async (i) => {
    const c = await pool.connect();
    try {
      await c.query('begin');
      const d = await c.query<{ id: string }>('insert into d (body, at) values ($1, $2) returning id', [`{"n":${i}}`, Date.now()]);
      const j = await c.query<{ id: string }>('insert into j (payload, at) values ($1, $2) returning id', [`{"d":${d.rows[0]!.id}}`, Date.now()]);
      await c.query('update d set job = $1 where id = $2', [j.rows[0]!.id, d.rows[0]!.id]);
      await c.query('commit');
    } finally {
      c.release();
    }
  });
  const read = await timed('pg: one-row reads', WRITES, (i) => pool.query('select id, body from d where id = $1', [(i % 100) + 1]));
  await pool.end();
  return [write, read];
}

async function postgresJs(url: string) {
  const sql = postgres(url, { max: POOL, onnotice: () => {} });
  await sql.unsafe(SCHEMA);
  const write = await timed('postgres.js: write transactions', WRITES, (i) =>
    sql.begin(async (tx) => {
      const [d] = await tx`insert into d (body, at) values (${`{"n":${i}}`}, ${Date.now()}) returning id`;
      const [j] = await tx`insert into j (payload, at) values (${`{"d":${d!.id}}`}, ${Date.now()}) returning id`;
      await tx`update d set job = ${j!.id} where id = ${d!.id}`;
    }),
  );
  const read = await timed('postgres.js: one-row reads', WRITES, (i) => sql`select id, body from d where id = ${(i % 100) + 1}`);
  await sql.end();
  return [write, read];
}

const cluster = await startPostgres();
try {
  const rows = [...(await nodePostgres(await cluster.createDatabase('bench_pg'))), ...(await postgresJs(await cluster.createDatabase('bench_postgresjs')))];
  console.log(`| driver: operation (${WRITES.toLocaleString('en-US')} each, ${CONCURRENCY} at a time, pool ${POOL}) | per second |`);
  console.log('|---|---:|');
  for (const r of rows) console.log(`| ${r.label} | ${Math.round(r.perSecond).toLocaleString('en-US')} |`);
} finally {
  await cluster.stop();
}
