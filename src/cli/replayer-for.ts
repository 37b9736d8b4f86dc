/** The Replayer of a command working on the configured store beside a running `serve`. */
import { Replayer } from '../bridge/replay.ts';
import type { LoadedSettings } from '../config/load.ts';
import { JobQueue } from '../jobs/queue.ts';
import type { Store } from '../store/database.ts';
import { DeliveriesRepo } from '../store/deliveries-repo.ts';
import { InboundRepo } from '../store/inbound-repo.ts';

export function replayerFor(store: Store, { settings }: LoadedSettings): Replayer {
  return new Replayer({
    store,
    queue: new JobQueue(store),
    deliveries: new DeliveriesRepo(store),
    inbound: new InboundRepo(store),
    maxAttempts: settings.jobs.max_attempts,
    platformMaxAttempts: settings.jobs.platform_max_attempts,
  });
}
