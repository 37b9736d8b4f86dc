/**
 * `ctx.submit(message, { state })`: a connector's state entries are stored in
 * the same write as a new message (one commit, not two), are left alone for a
 * duplicate, and a value that cannot be stored fails the submit with nothing
 * of it stored.
 */
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createConnectorContext } from '../../src/bridge/connector-context.ts';
import { InboundBridge } from '../../src/bridge/inbound.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/logger.ts';
import { openStore } from '../../src/store/database.ts';
import { tempDir } from '../support/temp-dir.ts';

function setup() {
  const groups: number[] = [];
  const store = openStore({ path: join(tempDir(), 'submit.db'), groupCommit: { onCommit: (size) => groups.push(size) } });
  onTestFinished(() => store.close());
  const inbound = new InboundBridge({ store, queue: new JobQueue(store), notify: () => {}, budget: { maxAttempts: 3, retryForMs: 60_000 } });
  const routes = { add: () => {} };
  const ctx = createConnectorContext('mail', { store, inbound, logger: createLogger('silent') }, routes);
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
