/**
 * The SQLite executor prepares every `?` as `+?` (plain-parameters.ts), so
 * that SQLite plans a statement once instead of again after every bind. The
 * rewrite must leave quoted text, quoted names, comments and numbered
 * parameters alone, and every statement must answer as it did with `?`.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { plainParameters } from '../../src/store/sqlite/plain-parameters.ts';
import { SqliteSql } from '../../src/store/sqlite/sqlite-sql.ts';

describe('plainParameters', () => {
  it('writes each bare parameter as +?', () => {
    expect(plainParameters(`select id from m where thread = ? and status = 'p' order by id limit ?`)).toBe(
      `select id from m where thread = +? and status = 'p' order by id limit +?`,
    );
    expect(plainParameters(`update t set a = a+?, b = (?) where id in (?,?)`)).toBe(`update t set a = a++?, b = (+?) where id in (+?,+?)`);
  });

  it('leaves quoted text, quoted names, comments and numbered parameters as they are', () => {
    const sql = `select '?', 'it''s ?', "col?", \`x?\`, [y?], ?1 -- a ? here
      /* and ? there */ from t where a = ?`;
    expect(plainParameters(sql)).toBe(`select '?', 'it''s ?', "col?", \`x?\`, [y?], ?1 -- a ? here
      /* and ? there */ from t where a = +?`);
  });

  it('leaves a statement without parameters unchanged, and an unclosed quote to SQLite', () => {
    expect(plainParameters('select 1')).toBe('select 1');
    expect(plainParameters(`select 'open ?`)).toBe(`select 'open ?`);
  });
});

describe('the SQLite executor with plain parameters', () => {
  const db = new Database(':memory:');
  db.exec(`create table m (id integer primary key, thread integer, status text, note text);
    create index m_thread on m (thread, status, id);
    create unique index m_note on m (note) where note is not null`);
  const insert = db.prepare(`insert into m (thread, status, note) values (?, ?, ?)`);
  for (let i = 1; i <= 30; i++) insert.run(i % 3, i % 2 === 0 ? 'pending' : 'done', i % 5 === 0 ? `n${i}` : null);
  const sql = new SqliteSql(db);
  const raw = (text: string, params: unknown[]) => db.prepare(text).all(...params);

  it.each([
    [`select id from m where thread = ? and status = ? order by id limit ?`, [1, 'pending', 3]],
    [`select id from m where thread = ? order by id desc limit ? offset ?`, [2, 2, 1]],
    [`select count(*) as n from m where id in (select value from json_each(?))`, ['[1,2,3,99]']],
    [`select id from m where note like ? order by id`, ['n1%']],
    [`select ? || note as x, ? + id as y, ? is null as z from m where note is not null order by id`, ['a', 10, null]],
    [`select id from m where id between ? and ? and thread = ?`, [3, 20, 0]],
  ])('answers %s as SQLite does with bare parameters', async (text, params) => {
    const expected = raw(text, params);
    expect(expected.length).toBeGreaterThan(0);
    expect(await sql.all(text, params)).toEqual(expected);
  });

  it('keeps the upsert of a partial unique index and RETURNING', async () => {
    const upsert = `insert into m (thread, status, note) values (?, ?, ?) on conflict (note) where note is not null do nothing returning id`;
    expect(await sql.get(upsert, [9, 'pending', 'n5'])).toBeUndefined(); // n5 is there
    const fresh = await sql.get<{ id: number }>(upsert, [9, 'pending', 'n-new']);
    expect(fresh?.id).toBe(31);
    expect(await sql.get(`select thread, note from m where id = ?`, [31])).toEqual({ thread: 9, note: 'n-new' });
  });

  it('keeps named parameters as they are', async () => {
    expect(await sql.all(`select id from m where thread = :t and status = :s order by id limit 2`, { t: 1, s: 'done' })).toEqual(
      raw(`select id from m where thread = 1 and status = 'done' order by id limit 2`, []),
    );
  });
});
