/**
 * `ctx.submit(message, { state })`: a connector's state entries are stored in
 * the same write as a new message (one commit, not two), are left alone for a
 * duplicate, and a value that cannot be stored fails the submit with nothing
 * of it stored. `ctx.submitAll(items)`: several messages in one write, all or
 * nothing.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createConnectorContext } from '../../src/bridge/connector-context.ts';
import { createFileLinks } from '../../src/bridge/file-links.ts';
import { FileService } from '../../src/bridge/files.ts';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup() {
  const groups: number[] = [];
  const store = openStore({ path: join(tempDir(), 'submit.db'), groupCommit: { onCommit: (size) => groups.push(size) } });
  onTestFinished(() => store.close());
  const inbound = new InboundBridge({ store, queue: new JobQueue(store), budget: { maxAttempts: 3, retryForMs: 60_000 } });
  const routes = { add: () => {} };
  const files = new FileService({ store, links: createFileLinks(randomBytes(32)), publicUrl: () => 'http://gw.example.test', ttlMs: 60_000 });
  const attachments = { fetch: () => Promise.reject(new Error('no attachments in these tests')) };
  const ctx = createConnectorContext('mail', { store, inbound, logger: createLogger('silent'), files, attachments }, routes);
  return { store, ctx, groups };
}

const message = (id: string) => ({ threadKey: 'T', messageId: id, senderId: 'customer@example.test', body: `text of ${id}` });

describe('submit with state', () => {
  it('stores the entries with a new message in one write, and leaves them for a duplicate', async () => {
    const { store, ctx, groups } = setup();
    await ctx.submit(message('m1'), { state: { 'thread:T': { last: 'm1' } } });
    expect(groups).toEqual([1]); // the message, its job and the state: one write, one commit
    expect(await ctx.state.get('thread:T')).toEqual({ last: 'm1' });
    expect((await store.read.inbound.byId(1))?.externalId).toBe('m1');

    const again = await ctx.submit(message('m1'), { state: { 'thread:T': { last: 'moved back' } } });
    expect(again.duplicate).toBe(true);
    expect(await ctx.state.get('thread:T')).toEqual({ last: 'm1' });
  });

  it('fails as a whole when an entry cannot be stored', async () => {
    const { store, ctx } = setup();
    await expect(ctx.submit(message('m2'), { state: { bad: undefined } })).rejects.toThrow(/not JSON-serialisable/);
    expect(await store.read.inbound.byId(1)).toBeUndefined();
    expect(await store.read.sql.get<{ n: number }>('select count(*) as n from jobs')).toEqual({ n: 0 });
  });
});

describe('submitAll', () => {
  const count = async (store: ReturnType<typeof setup>['store'], table: string) =>
    (await store.read.sql.get<{ n: number }>(`select count(*) as n from ${table}`))!.n;

  it('stores the messages in order with their state in one write, and tells duplicates apart', async () => {
    const { store, ctx, groups } = setup();
    await ctx.submit(message('m1'));
    const results = await ctx.submitAll([
      { message: message('m1') },
      { message: message('m2'), state: { 'thread:T': { last: 'm2' } } },
      { message: { ...message('m3'), threadKey: 'U' }, state: { 'thread:U': { last: 'm3' } } },
    ]);
    expect(groups).toEqual([1, 1]); // the second: three messages, one write
    expect(results.map((r) => r.duplicate)).toEqual([true, false, false]);
    expect(results[0]!.threadId).toBe(results[1]!.threadId);
    expect(results[2]!.threadId).not.toBe(results[1]!.threadId);
    const stored = await store.read.sql.all<{ external_id: string }>('select external_id from inbound_messages order by id');
    expect(stored.map((r) => r.external_id)).toEqual(['m1', 'm2', 'm3']);
    expect(await ctx.state.get('thread:T')).toEqual({ last: 'm2' });
    expect(await ctx.state.get('thread:U')).toEqual({ last: 'm3' });
  });

  it('refuses the whole call for one invalid message, naming its index and field, before storing anything', async () => {
    const { store, ctx, groups } = setup();
    const refused = ctx.submitAll([{ message: message('m1') }, { message: { ...message('m2'), body: ' ' } }]);
    await expect(refused).rejects.toMatchObject({ code: 'TG_SUBMIT_INVALID', index: 1, field: 'body' });
    expect(groups).toEqual([]);
    expect(await count(store, 'inbound_messages')).toBe(0);
  });

  it('stores nothing of the call when one message fails in the store, and a neighbour write in the same commit is kept', async () => {
    const { store, ctx, groups } = setup();
    const [all, alone] = await Promise.allSettled([
      ctx.submitAll([{ message: message('m1') }, { message: message('m2'), state: { bad: undefined } }]),
      ctx.submit({ ...message('m3'), threadKey: 'U' }),
    ]);
    expect(all.status).toBe('rejected');
    expect(alone.status).toBe('fulfilled');
    expect(groups).toEqual([2]); // both writes in one commit
    const stored = await store.read.sql.all<{ external_id: string }>('select external_id from inbound_messages order by id');
    expect(stored.map((r) => r.external_id)).toEqual(['m3']);
    expect(await count(store, 'jobs')).toBe(1);
  });

  it('an empty call stores nothing and answers no results', async () => {
    const { ctx, groups } = setup();
    expect(await ctx.submitAll([])).toEqual([]);
    expect(groups).toEqual([]);
  });
});
