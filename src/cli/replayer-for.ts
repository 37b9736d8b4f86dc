/** The Replayer of a command working on the configured store beside a running `serve`. */
import { Replayer } from '../bridge/replay.ts';
import type { LoadedSettings } from '../config/load.ts';
import { JobQueue } from '../jobs/queue.ts';
import type { Store } from '../store/database.ts';
import { retryPolicy } from './retry-policy.ts';

export function replayerFor(store: Store, { settings }: LoadedSettings): Replayer {
  const policy = retryPolicy(settings.jobs);
  return new Replayer({
    store,
    queue: new JobQueue(store, { backoff: policy.backoff }),
    deliveryBudget: policy.delivery,
    platformBudget: policy.platform,
  });
}
