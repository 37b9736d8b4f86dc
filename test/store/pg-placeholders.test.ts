/**
 * The repositories write SQLite's `?` placeholders; on PostgreSQL each is
 * numbered (`$1`, `$2`…) except where it is not a placeholder: inside quoted
 * strings and identifiers, and inside `--` comments — whose apostrophes must
 * not open a string either (a comment's "attempt's" once left every later
 * `?` unnumbered and the listing failed on PostgreSQL only).
 */
import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../../src/store/postgres/pg-sql.ts';

describe('numbering placeholders for PostgreSQL', () => {
  it('numbers each ? outside strings, identifiers and comments', () => {
    expect(numberPlaceholders(`select "a?" from t where x = ? and y = 'why?' and z in (?, ?)`).text).toBe(`select "a?" from t where x = $1 and y = 'why?' and z in ($2, $3)`);
  });

  it('passes over a -- comment to its line end, apostrophes and question marks included', () => {
    const sql = `select a, -- the last attempt's error: why not ?\n b from t where c = ? limit ?`;
    expect(numberPlaceholders(sql).text).toBe(`select a, -- the last attempt's error: why not ?\n b from t where c = $1 limit $2`);
  });

  it('keeps a single minus (arithmetic) as it is', () => {
    expect(numberPlaceholders(`select ? - 1, x -? from t`).text).toBe(`select $1 - 1, x -$2 from t`);
  });

  it('notes the array casts of a merged statement, whose columns then travel in binary (pg-array.ts)', () => {
    const { arrays } = numberPlaceholders(`select * from unnest(?::bigint[], ?::TEXT[], ?::int[], ?::text) where id = any(?::int8[]) and x = ?`);
    expect(arrays).toEqual(['int8', 'text', 'int4', undefined, 'int8', undefined]);
  });
});
