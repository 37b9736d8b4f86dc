/**
 * The body of a vitest globalSetup that starts ONE real server for the whole
 * run, lazily: only a small control server runs, its address provided to the
 * test files under `key`, until the first file that needs the server asks
 * (`POST /ensure`); every later caller gets the same server. Further routes
 * (`POST /<name>`) act on the started server (PostgreSQL's `/kill` and
 * `/start`). The server is stopped at teardown.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';

export async function lazyServerSetup<T extends { stop(): Promise<void> }>(
  project: TestProject,
  key: keyof ProvidedContext,
  start: () => Promise<T>,
  routes: { ensure: (server: T) => unknown } & Record<string, (server: T) => unknown>,
): Promise<() => Promise<void>> {
  let started: Promise<T> | undefined;
  const control = createServer((req, res) => {
    const route = routes[(req.url ?? '').replace(/^\//, '')];
    if (req.method !== 'POST' || route === undefined || (req.url !== '/ensure' && started === undefined)) return void res.writeHead(404).end();
    started ??= start();
    started.then(async (server) => route(server)).then(
      (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {})),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err)),
    );
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  project.provide(key, `http://127.0.0.1:${(control.address() as AddressInfo).port}` as never);

  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    const server = await started?.catch(() => undefined);
    await server?.stop();
  };
}
