/**
 * The wake-ups' sender (src/store/postgres/pg-wakeup-sender.ts): per payload the first notification goes out at once,
 * the rest of a burst as one more at the end of the window, and `flush` sends what waits for its window at once.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { WakeupSender } from '../../src/store/postgres/pg-wakeup-sender.ts';
import { until } from '../support/wait.ts';

/** A pool that records each `pg_notify` it is asked for. */
function recordingPool() {
  const sent: unknown[][] = [];
  const pool = { query: async (_sql: string, params: unknown[]) => void sent.push(params) } as unknown as pg.Pool;
  return { pool, sent };
}

describe('wake-up sender', () => {
  it('sends the first of a burst at once and the rest as one more after the window, per payload', async () => {
    const { pool, sent } = recordingPool();
    const sender = new WakeupSender(pool, 'threadgate_jobs', { windowMs: 50 });
    sender.send('["send",null]');
    sender.send('["send",null]');
    sender.send('["send",null]');
    sender.send('["post","mail"]');
    expect(sent).toEqual([
      ['threadgate_jobs', '["send",null]'],
      ['threadgate_jobs', '["post","mail"]'],
    ]);
    await until(() => sent.length === 3, 5_000, 'the burst\'s last');
    expect(sent[2]).toEqual(['threadgate_jobs', '["send",null]']);
    await new Promise((r) => setTimeout(r, 120)); // two windows: nothing more was queued, nothing more is sent
    expect(sent).toHaveLength(3);
  });

  it('sends what waits for its window at once on flush', async () => {
    const { pool, sent } = recordingPool();
    const sender = new WakeupSender(pool, 'threadgate_jobs', { windowMs: 60_000 });
    sender.send('*');
    sender.send('*');
    await sender.flush();
    expect(sent).toEqual([
      ['threadgate_jobs', '*'],
      ['threadgate_jobs', '*'],
    ]);
  });
});
