/**
 * The ticket poller leaves a system alone as long as it asks: after a 429 or
 * 503 with `Retry-After`, the next round waits that long even when the
 * poll interval and the backoff are shorter. And it can be woken: a wake (a
 * webhook said something changed) ends the rest after a successful round.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TicketSystemError, type ChangeList } from '../../../connectors/ticket/ticket-adapter.ts';
import { TicketPoller } from '../../../connectors/ticket/ticket-poller.ts';
import { MemoryDesk } from './memory-desk.ts';
import { recordingContext } from '../webhook/recording-context.ts';

/** A desk whose listing fails once with `failure`, recording when each listing came. */
class BusyDesk extends MemoryDesk {
  readonly listedAt: number[] = [];
  readonly failure: TicketSystemError;
  /** Which listing fails (1-based; 0: none). */
  failOn = 2;
  constructor(failure: TicketSystemError) {
    super();
    this.failure = failure;
  }

  override async listChanges(since: string | undefined): Promise<ChangeList> {
    this.listedAt.push(performance.now());
    if (this.listedAt.length === this.failOn) throw this.failure;
    return super.listChanges(since);
  }
}

let abort = new AbortController();
afterEach(() => abort.abort());

async function gapAfterFailure(failure: TicketSystemError): Promise<number> {
  abort = new AbortController();
  const desk = new BusyDesk(failure);
  const running = new TicketPoller(desk, recordingContext('desk'), 0.05).run(abort.signal);
  while (desk.listedAt.length < 3) await new Promise((r) => setTimeout(r, 20));
  abort.abort();
  await running;
  return desk.listedAt[2]! - desk.listedAt[1]!;
}

describe('ticket poller, Retry-After', () => {
  it('after a 429 asking for 1.5 s, the next round comes no sooner, though the poll interval is 50 ms', async () => {
    const gap = await gapAfterFailure(new TicketSystemError('busy', { status: 429, retryAfterMs: 1_500 }));
    expect(gap).toBeGreaterThanOrEqual(1_450);
  });

  it('after a 503 asking for 1 s the same', async () => {
    const gap = await gapAfterFailure(new TicketSystemError('maintenance', { status: 503, retryAfterMs: 1_000 }));
    expect(gap).toBeGreaterThanOrEqual(950);
  });
});

describe('ticket poller, wake', () => {
  it('a wake ends the rest after a successful round: the next round comes at once, though the interval is a minute', async () => {
    abort = new AbortController();
    const desk = new BusyDesk(new TicketSystemError('never thrown: the second listing is woken, not failed', { status: 500 }));
    desk.failOn = 0;
    const poller = new TicketPoller(desk, recordingContext('desk'), 60);
    const running = poller.run(abort.signal);
    while (desk.listedAt.length < 1) await new Promise((r) => setTimeout(r, 20)); // the first round: "from now on"
    await new Promise((r) => setTimeout(r, 100));
    expect(desk.listedAt).toHaveLength(1); // resting for a minute
    poller.wake();
    while (desk.listedAt.length < 2) await new Promise((r) => setTimeout(r, 20));
    abort.abort();
    await running;
    expect(desk.listedAt).toHaveLength(2);
  });
});
