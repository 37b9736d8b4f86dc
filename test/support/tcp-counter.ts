/**
 * A TCP pass-through on a real loopback port that counts the connections
 * through it: how many are open now and the most that were ever open at
 * once. Put in front of the IMAP server, it shows how many sessions a
 * mailbox has, whoever opened them. Closed after the test.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

export interface TcpCounter {
  port: number;
  /** Connections open now. */
  open: number;
  /** The most connections that were open at the same time. */
  mostAtOnce: number;
  /** Connections accepted so far. */
  total: number;
  /** Cuts every open connection (a server-side drop, as a restart or an idle timeout does). */
  dropAll(): void;
}

export async function startTcpCounter(target: { host: string; port: number }): Promise<TcpCounter> {
  const sockets = new Set<Socket>();
  const counter: TcpCounter = { port: 0, open: 0, mostAtOnce: 0, total: 0, dropAll: () => sockets.forEach((s) => s.destroy()) };
  const server = createServer((client) => {
    counter.total += 1;
    counter.open += 1;
    counter.mostAtOnce = Math.max(counter.mostAtOnce, counter.open);
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      counter.open -= 1;
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  counter.port = (server.address() as AddressInfo).port;
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return counter;
}
