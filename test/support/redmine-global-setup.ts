/**
 * vitest globalSetup: ONE real Redmine for the whole run (./redmine-server.ts),
 * started lazily: setting up a Redmine takes ~10 s and most runs have no
 * Redmine test, so this only opens a small control server and provides its
 * address; the first test file that calls `redmine()` (./redmine.ts) has
 * Redmine installed when missing and started, and every later caller gets the
 * same one. It is stopped, and its temp folder removed, at teardown.
 * THREADGATE_REDMINE_DEBUG=1 keeps the folder and prints where it is.
 */
import type { TestProject } from 'vitest/node';
import { lazyServerSetup } from './lazy-server-setup.ts';
import { startRedmine } from './redmine-server.ts';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return lazyServerSetup(project, 'redmineControl', startRedmine, {
    ensure(redmine) {
      if (process.env.THREADGATE_REDMINE_DEBUG) console.log(`Redmine ${redmine.url} in ${redmine.dir}`);
      return { url: redmine.url, seed: redmine.seed, dir: redmine.dir };
    },
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    redmineControl: string;
  }
}
