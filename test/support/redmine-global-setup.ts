/**
 * vitest globalSetup: ONE real Redmine for the whole run (./redmine-server.ts),
 * started lazily: setting up a Redmine takes ~10 s and most runs have no
 * Redmine test, so this only opens a small control server and provides its
 * address; the first test file that calls `redmine()` (./redmine.ts) has
 * Redmine installed when missing and started, and every later caller gets the
 * same one. It is stopped, and its temp folder removed, at teardown.
 * THREADGATE_REDMINE_DEBUG=1 keeps the folder and prints where it is.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startRedmine, type RunningRedmine } from './redmine-server.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let started: Promise<RunningRedmine> | undefined;
  const control = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/ensure') return void res.writeHead(404).end();
    started ??= startRedmine();
    started.then(
      (redmine) => {
        if (process.env.THREADGATE_REDMINE_DEBUG) console.log(`Redmine ${redmine.url} in ${redmine.dir}`);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: redmine.url, seed: redmine.seed, dir: redmine.dir }));
      },
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide('redmineControl', `http://127.0.0.1:${(control.address() as AddressInfo).port}`);

  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    const redmine = await started?.catch(() => undefined);
    await redmine?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    redmineControl: string;
  }
}
