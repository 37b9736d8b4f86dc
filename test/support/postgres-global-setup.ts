/**
 * vitest globalSetup: ONE throwaway PostgreSQL cluster for the whole run
 * (./postgres-server.ts), started lazily like Redmine: only a small control
 * server runs until the first test file that needs PostgreSQL asks
 * (`POST /ensure`, through ./postgres.ts); every later caller gets the same
 * cluster. `POST /kill` and `POST /start` stop it hard and bring it back (a
 * database restart under load). Stopped, and its folder removed, at teardown.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestProject } from 'vitest/node';
import { startPostgres, type RunningPostgres } from './postgres-server.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let started: Promise<RunningPostgres> | undefined;
  const control = createServer((req, res) => {
    const answer = (work: Promise<unknown>) =>
      work.then(
        (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {})),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
      );
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (req.url === '/ensure') {
      started ??= startPostgres();
      return void answer(started.then((pg) => ({ url: pg.url('postgres'), host: pg.host, port: pg.port })));
    }
    if (req.url === '/kill' && started) return void answer(started.then((pg) => pg.kill()));
    if (req.url === '/start' && started) return void answer(started.then((pg) => pg.start()));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide('postgresControl', `http://127.0.0.1:${(control.address() as AddressInfo).port}`);

  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    const pg = await started?.catch(() => undefined);
    await pg?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresControl: string;
  }
}
