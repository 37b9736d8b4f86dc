/**
 * Merged statements' columns travel in PostgreSQL's binary array format
 * (src/store/postgres/pg-array.ts): what the server reads back from them is
 * what was given — nulls, the empty string, text beyond ASCII, U+0000 as
 * U+FFFD (as every text parameter), the ends of bigint's safe range and of
 * int — and an array whose values do not fit the cast goes as text.
 */
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { binaryArray } from '../../src/store/postgres/pg-array.ts';
import { PgSql } from '../../src/store/postgres/pg-sql.ts';
import { postgresDatabase } from '../support/postgres.ts';

async function connect(): Promise<PgSql> {
  const client = new pg.Client({ connectionString: await postgresDatabase(), types: { getTypeParser: (oid: number) => (oid === 20 ? Number : pg.types.getTypeParser(oid)) } as pg.CustomTypesConfig });
  await client.connect();
  onTestFinished(() => client.end());
  return new PgSql(client);
}

describe('PostgreSQL store: arrays in binary format', () => {
  it('reads back text, bigint and int columns as given, nulls included', async () => {
    const db = await connect();
    const texts = ['plain', '', null, 'Grüße 👋 "quoted", {braced} \\ back', 'nul\u0000inside', 'x'.repeat(70_000)];
    const bigints = [0, 1, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, null, 1_800_000_000_000];
    const ints = [0, 2_147_483_647, -2_147_483_648, null];
    expect(binaryArray(texts, 'text')).toBeInstanceOf(Buffer);
    const rows = await db.all<{ t: string | null }>(`select t from unnest(?::text[]) with ordinality as u(t, n) order by n`, [texts]);
    expect(rows.map((r) => r.t)).toEqual(texts.map((t) => (t === null ? null : t.replaceAll('\u0000', '\uFFFD'))));
    const big = await db.all<{ b: number | null }>(`select b from unnest(?::bigint[]) with ordinality as u(b, n) order by n`, [bigints]);
    expect(big.map((r) => r.b)).toEqual(bigints);
    const small = await db.all<{ i: number | null }>(`select i from unnest(?::int[]) with ordinality as u(i, n) order by n`, [ints]);
    expect(small.map((r) => r.i)).toEqual(ints);
    // Several columns side by side, as a merged insert sends them.
    const pairs = await db.all<{ id: number; name: string }>(`select * from unnest(?::bigint[], ?::text[]) as v(id, name) order by id`, [[2, 1], ['b', 'a']]);
    expect(pairs).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }]);
  });

  it('leaves an array whose values do not fit its cast to the text form, which the server judges', async () => {
    expect(binaryArray([1, 1.5], 'int8')).toBeUndefined();
    expect(binaryArray([2 ** 31], 'int4')).toBeUndefined();
    expect(binaryArray(['1', 2], 'text')).toBeUndefined();
    const db = await connect();
    // As text, a number in a text column is its digits; a fraction in a bigint column is the server's error.
    expect(await db.all<{ t: string }>(`select t from unnest(?::text[]) as u(t)`, [[7]])).toEqual([{ t: '7' }]);
    await expect(db.all(`select b from unnest(?::bigint[]) as u(b)`, [[1.5]])).rejects.toMatchObject({ code: '22P02' });
  });
});
