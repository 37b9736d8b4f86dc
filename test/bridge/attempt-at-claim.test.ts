/**
 * A delivery's attempt is opened in the write that takes (or claims) its
 * job, and closed whatever happens before the hand-over: a delivery whose
 * connector is no longer configured dead-letters its job, and its attempt is
 * closed `dead` with the reason, not left `running` in the delivery log.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { OutboundDispatch } from '../../src/bridge/outbound-dispatch.ts';
import { DELIVER_JOB, type DeliverJobPayload } from '../../src/bridge/webhook-intake.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobRunner } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/logger.ts';
import { openTestStore, STORE_BACKENDS } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

describe.each(STORE_BACKENDS)('the attempt of a delivery (%s store)', (backend) => {
  it('is opened with the take and closed dead when the run fails before the hand-over', async () => {
    const { store } = await openTestStore(backend);
    const queue = new JobQueue(store);
    const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs: 60_000 });
    onTestFinished(() => runner.stop(100));
    const logger = createLogger('silent');
    const dispatch = new OutboundDispatch({ store, maxStoredBodyBytes: 65_536, instanceOf: () => undefined, logger });
    runner.register<DeliverJobPayload>(DELIVER_JOB, { handler: dispatch.handle, takeOnEnqueue: true, onClaim: dispatch.openAttempt });
    runner.start();
    // Committed after the runner's first claim (of an empty queue): the runner knows nothing waits.
    await store.write(async () => undefined);

    const delivery = await store.write(async (tx) => {
      const id = await tx.deliveries.insert(
        { connector: 'gone', eventType: 'message_created', dedupKey: 'message_created:1', duplicateOf: null, threadId: 't1', chatId: null,
          body: '{}', bodyTruncated: false, headers: {}, verification: 'valid', status: 'accepted', error: null },
        Date.now(),
      );
      await tx.deliveries.setJob(id, await queue.enqueue(tx, { kind: DELIVER_JOB, payload: { connector: 'gone', delivery: id, thread: 't1' } }));
      return id;
    });
    // Opened in the enqueuing write itself: the job was taken there.
    const opened = await store.read.attempts.ofDelivery(delivery);
    expect(opened.map((a) => a.outcome)).toEqual(['running']);

    await until(async () => (await store.read.attempts.ofDelivery(delivery))[0]?.outcome !== 'running', 5_000, 'the attempt closed');
    const [attempt] = await store.read.attempts.ofDelivery(delivery);
    expect(attempt).toMatchObject({ outcome: 'dead', attempt: 1, replay: false });
    expect(attempt?.error).toContain('connector gone is not configured');
    expect((await queue.countByStatus()).dead).toBe(1);
  });
});
