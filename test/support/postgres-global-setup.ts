/**
 * vitest globalSetup: ONE throwaway PostgreSQL cluster for the whole run
 * (./postgres-server.ts), started lazily like Redmine: only a small control
 * server runs until the first test file that needs PostgreSQL asks
 * (`POST /ensure`, through ./postgres.ts); every later caller gets the same
 * cluster. `POST /kill` and `POST /start` stop it hard and bring it back (a
 * database restart under load). Stopped, and its folder removed, at teardown.
 */
import type { TestProject } from 'vitest/node';
import { lazyServerSetup } from './lazy-server-setup.ts';
import { startPostgres } from './postgres-server.ts';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return lazyServerSetup(project, 'postgresControl', startPostgres, {
    ensure: (pg) => ({ url: pg.url('postgres'), host: pg.host, port: pg.port }),
    kill: (pg) => pg.kill(),
    start: (pg) => pg.start(),
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresControl: string;
  }
}
