/**
 * Loopback ports, found by listening on port 0 and closing again. The port
 * is free a moment later, but nothing reserves it.
 */
import { createServer, type AddressInfo } from 'node:net';

/** A port on `host` that was free a moment ago, for a server about to be started on it. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A port on 127.0.0.1 that nothing listens on, for a connection that must be
 * refused. Found the same way as freePort(); the name says what the test
 * relies on: nobody starts anything on it.
 */
export const closedPort = (): Promise<number> => freePort('127.0.0.1');
