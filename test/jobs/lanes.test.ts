/**
 * Lanes: a kind whose jobs each name a lane (a platform post: its connector)
 * is claimed per lane, each lane with slots of its own, shared by the kinds
 * of its group. A lane of concurrency 1 never runs two jobs at once, one
 * lane's backlog does not hold back another's, and lanes this runner was not
 * told of (jobs queued before it started, by another process, or left
 * running by a process that died) are found in the store.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { JobQueue, type EnqueueInput } from '../../src/jobs/queue.ts';
import { JobRunner, type JobKindOptions } from '../../src/jobs/runner.ts';
import { createLogger } from '../../src/log/logger.ts';
import { openTestStore, STORE_BACKENDS, type TestBackend } from '../support/store-backends.ts';
import { until } from '../support/wait.ts';

const WAIT_MS = 5_000;

async function setup(backend: TestBackend, pollMs = 5_000) {
  const { store } = await openTestStore(backend);
  const queue = new JobQueue(store);
  const runner = new JobRunner(queue, { logger: createLogger('silent'), pollMs });
  onTestFinished(() => runner.stop(100)); // before the store closes: registered after it, so run first
  const enqueue = (input: EnqueueInput, on: JobQueue = queue) => store.write((tx) => on.enqueue(tx, input));
  return { store, queue, runner, enqueue };
}

/** Counts each lane's running jobs, its peak, and the jobs run, in order. */
function tally() {
  const running = new Map<string, number>();
  const peak = new Map<string, number>();
  const ran: string[] = [];
  return {
    peak,
    ran,
    async run(lane: string, id: string, hold: () => Promise<void>) {
      running.set(lane, (running.get(lane) ?? 0) + 1);
      peak.set(lane, Math.max(peak.get(lane) ?? 0, running.get(lane)!));
      await hold();
      running.set(lane, running.get(lane)! - 1);
      ran.push(id);
    },
  };
}

type Payload = { lane: string; id: string };
const job = (kind: string, lane: string, id: string): EnqueueInput => ({ kind, payload: { lane, id }, lane });

describe.each(STORE_BACKENDS)('%s store: job lanes', (backend) => {
  it('runs a lane of concurrency 1 one job at a time across the kinds of its group, while other lanes run several', async () => {
    const { runner, enqueue } = await setup(backend);
    const t = tally();
    const kind: JobKindOptions<Payload> = {
      lanes: { group: 'platform', concurrency: (lane) => (lane === 'slow' ? 1 : 4) },
      handler: ({ lane, id }) => t.run(lane, id, () => new Promise((r) => setTimeout(r, 15))),
    };
    runner.register('post', kind);
    runner.register('close', kind);
    runner.start();
    for (let i = 0; i < 4; i++) await enqueue(job('post', 'slow', `post${i}`));
    for (let i = 0; i < 2; i++) await enqueue(job('close', 'slow', `close${i}`));
    await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => enqueue(job('post', 'fast', `fast${i}`))));
    await until(() => t.ran.length === 14, WAIT_MS, 'all fourteen jobs run');
    expect(t.peak.get('slow')).toBe(1);
    expect(t.peak.get('fast')).toBeGreaterThan(1);
    expect(t.peak.get('fast')).toBeLessThanOrEqual(4);
  });

  it('runs a lane’s job while another lane is full with a backlog behind it', async () => {
    const { runner, enqueue } = await setup(backend);
    const t = tally();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    runner.register<Payload>('post', {
      lanes: { group: 'platform', concurrency: () => 2 },
      handler: ({ lane, id }) => t.run(lane, id, () => (lane === 'busy' ? gate : Promise.resolve())),
    });
    runner.start();
    for (let i = 0; i < 20; i++) await enqueue(job('post', 'busy', `busy${i}`));
    await until(() => t.peak.get('busy') === 2, WAIT_MS, 'the busy lane full');
    await enqueue(job('post', 'quiet', 'quiet0'));
    await until(() => t.ran.includes('quiet0'), WAIT_MS, 'the quiet lane’s job run');
    expect(t.ran).toEqual(['quiet0']); // the busy lane's two still hold their slots, its eighteen wait
    release();
    await until(() => t.ran.length === 21, WAIT_MS, 'the busy lane drained');
    expect(t.peak.get('busy')).toBe(2);
  });

  it('finds lanes in the store: jobs queued before it started, by another process, and left running by one that died', async () => {
    const { store, queue, runner, enqueue } = await setup(backend, 100);
    const t = tally();
    runner.register<Payload>('post', {
      lanes: { group: 'platform', concurrency: () => 2 },
      leaseMs: 200,
      handler: ({ lane, id }) => t.run(lane, id, async () => {}),
    });
    // Before the start: one queued, one held by a process that died (its lease runs out).
    await enqueue(job('post', 'before', 'before0'));
    const died = await enqueue(job('post', 'died', 'died0'));
    expect((await store.write((tx) => queue.claimIn(tx, 'post', 'gone.1', 150, 5, false, 'died'))).map((j) => j.id)).toEqual([died]);
    runner.start();
    // Another process (the CLI's queue: its enqueues tell no runner here).
    await enqueue(job('post', 'elsewhere', 'elsewhere0'), new JobQueue(store));
    await until(() => t.ran.length === 3, WAIT_MS, 'the three jobs run');
    expect(t.ran.sort()).toEqual(['before0', 'died0', 'elsewhere0']);
    // Its handler returned; the run's completion commits right after.
    await until(async () => (await queue.get(died))?.status === 'done', WAIT_MS, 'the job left running done');
    expect(await queue.get(died)).toMatchObject({ attempts: 2 });
  });

  it('refuses, in its write, a job that no claim would read: of a kind with lanes and in none, or in a lane of a kind without', async () => {
    const { queue, runner, enqueue } = await setup(backend);
    runner.register('post', { lanes: { group: 'platform', concurrency: () => 1 }, handler: async () => {} });
    runner.register('deliver', { handler: async () => {} });
    await expect(enqueue({ kind: 'post', payload: {} })).rejects.toMatchObject({ code: 'TG_JOB_LANE', message: 'a job of kind post names no lane' });
    await expect(enqueue({ kind: 'deliver', payload: {}, lane: 'mail' })).rejects.toMatchObject({
      code: 'TG_JOB_LANE',
      message: 'a job of kind deliver names a lane, and the kind has none',
    });
    expect((await queue.countByStatus()).queued).toBe(0);
  });

  it('will not take a kind with lanes on enqueue', async () => {
    const { runner } = await setup(backend);
    expect(() => runner.register('post', { lanes: { group: 'g', concurrency: () => 1 }, takeOnEnqueue: true, handler: async () => {} })).toThrow(
      'a kind with lanes is not taken on enqueue',
    );
  });
});
