/**
 * A delivery's attempt is opened in the write that takes (or claims) its
 * job, and closed whatever happens before the hand-over: a delivery whose
 * connector is no longer configured dead-letters its job, and its attempt is
 * closed `dead` with the reason, not left `running` in the delivery log. The
 * delivery is read in that write too, and the run delivers what it read
 * there, without reading it again; a delivery gone by then opens no attempt
 * and dead-letters its job.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { OutboundDispatch } from '../../src/bridge/outbound-dispatch.ts';
import { DELIVER_JOB, type DeliverJobPayload } from '../../src/bridge/webhook-intake.ts';
import type { ConnectorInstance } from '../../src/connector/api.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Store } from '../../src/store/database.ts';
import type { Repos } from '../../src/store/repos.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { openTestStore, STORE_BACKENDS, type TestBackend } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

/** A runner of deliveries through an OutboundDispatch on the test's store (its reading side as `dispatchStore` makes it). */
async function deliveries(backend: TestBackend, instance: ConnectorInstance | undefined, dispatchStore?: (store: Store) => Store) {
  const { store } = await openTestStore(backend);
  const queue = new JobQueue(store);
  const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: 60_000 });
  onTestFinished(() => runner.stop(100));
  const dispatch = new OutboundDispatch({
    store: dispatchStore ? dispatchStore(store) : store, maxStoredBodyBytes: 65_536, instanceOf: () => instance, logger: createLogger('silent'),
  });
  runner.register<DeliverJobPayload>(DELIVER_JOB, { handler: dispatch.handle, takeOnEnqueue: true, onClaim: dispatch.openAttempt });
  runner.start();
  // Committed after the runner's first claim (of an empty queue): the runner knows nothing waits.
  await store.write(async () => undefined);
  /**
   * An accepted delivery of thread t1 and its job, in one write (where the runner takes the job); its id. `inWrite`
   * reads in that write, after the job was enqueued: once the write committed, the run may already be over.
   */
  const accept = (connector: string, body: string, inWrite?: (tx: Repos, id: number) => Promise<void>) =>
    store.write(async (tx) => {
      const id = await tx.deliveries.insert(
        { connector, eventType: 'message_created', dedupKey: `message_created:${connector}`, eventAt: '2026-11-27T08:00:00Z', duplicateOf: null, threadId: 't1', chatId: null,
          body, bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null },
        Date.now(),
      );
      await tx.deliveries.setJob(id, await queue.enqueue(tx, { kind: DELIVER_JOB, payload: { connector, delivery: id, thread: 't1' } }));
      await inWrite?.(tx, id);
      return id;
    });
  return { store, queue, accept };
}

describe.each(STORE_BACKENDS)('the attempt of a delivery (%s store)', (backend) => {
  it('delivers the delivery read in the write that took its job, without reading it again', async () => {
    const delivered: unknown[] = [];
    const instance = { deliver: async (event: unknown) => void delivered.push(event) } as unknown as ConnectorInstance;
    // The dispatch's reading connection refuses deliveries: only the claiming write can have read this one.
    const { store, accept } = await deliveries(backend, instance, (s) => ({
      ...s,
      read: new Proxy(s.read, {
        get: (target, key) =>
          key === 'deliveries' ? { byId: () => Promise.reject(new Error('the delivery was read again')) } : Reflect.get(target, key),
      }),
    }));
    const event = messageCreatedEnvelope({ threadId: 't1', text: 'read once' });
    const id = await accept('hook', JSON.stringify(event));
    await until(async () => (await store.read.deliveries.byId(id))?.status !== 'accepted', 5_000, 'the delivery delivered');
    expect((await store.read.deliveries.byId(id))?.status).toBe('delivered');
    expect(delivered).toEqual([event]);
    expect((await store.read.attempts.ofDelivery(id)).map((a) => a.outcome)).toEqual(['delivered']);
  });

  it('opens no attempt for a delivery gone before its job was taken, and dead-letters the job', async () => {
    const { store, queue } = await deliveries(backend, undefined);
    const job = await store.write((tx) => queue.enqueue(tx, { kind: DELIVER_JOB, payload: { connector: 'hook', delivery: 424_242, thread: 't1' } }));
    await until(async () => (await store.read.jobs.get(job))?.status === 'dead', 5_000, 'the job dead');
    expect((await store.read.jobs.get(job))?.last_error).toContain('delivery 424242 does not exist');
    expect(await store.read.attempts.ofDelivery(424_242)).toEqual([]);
  });

  it('is opened with the take and closed dead when the run fails before the hand-over', async () => {
    const { store, queue, accept } = await deliveries(backend, undefined);
    // Opened in the enqueuing write itself: the job was taken there.
    let opened: string[] = [];
    const delivery = await accept('gone', '{}', async (tx, id) => void (opened = (await tx.attempts.ofDelivery(id)).map((a) => a.outcome)));
    expect(opened).toEqual(['running']);

    await until(async () => (await store.read.attempts.ofDelivery(delivery))[0]?.outcome !== 'running', 5_000, 'the attempt closed');
    const [attempt] = await store.read.attempts.ofDelivery(delivery);
    expect(attempt).toMatchObject({ outcome: 'dead', attempt: 1, replay: false });
    expect(attempt?.error).toContain('connector gone is not configured');
    expect((await queue.countByStatus()).dead).toBe(1);
  });
});
