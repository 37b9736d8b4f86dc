/**
 * vitest globalSetup: ONE real Request Tracker 5 for the whole run
 * (./request-tracker-server.ts), started lazily: setting one up takes ~6 s
 * and most runs have no Request Tracker test, so this only opens a small
 * control server and provides its address; the first test file that calls
 * `requestTracker()` (./request-tracker.ts) has RT installed when missing and
 * started, and every later caller gets the same one. It is stopped, and its
 * temp folder removed, at teardown. THREADGATE_RT_DEBUG=1 keeps the folder
 * (database, rt.log, outgoing-mail.txt) and prints where it is.
 */
import type { TestProject } from 'vitest/node';
import { lazyServerSetup } from './lazy-server-setup.ts';
import { startRequestTracker } from './request-tracker-server.ts';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return lazyServerSetup(project, 'requestTrackerControl', startRequestTracker, {
    ensure(rt) {
      if (process.env.THREADGATE_RT_DEBUG) console.log(`Request Tracker ${rt.url} in ${rt.dir}`);
      return { url: rt.url, seed: rt.seed, dir: rt.dir };
    },
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    requestTrackerControl: string;
  }
}
