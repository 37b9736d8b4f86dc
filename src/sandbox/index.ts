/**
 * The sandbox: an in-process emulator of every endpoint of the platform's
 * three documents (sign-in, chats and users; builder, form data, reporting
 * and event listing; channel and unified messaging) on one address, with a
 * control API under /_sandbox that seeds data and plays the agent side.
 */
import type { FastifyInstance } from 'fastify';
import { buildSandboxApp } from './app.ts';
import type { SandboxOptions } from './options.ts';

export { buildSandboxApp } from './app.ts';
export type { SandboxOptions } from './options.ts';

export interface RunningSandbox {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  organizationId: string;
  roomId: string;
  token: string;
  tokenType: 'Token';
  /** Stops listening, cancels webhook retries and aborts webhook requests in flight. */
  close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const { app, seed, options: resolved, saver, lastUrl } = buildSandboxApp(options);
  await listenOn(app, resolved.host, resolved.port, lastUrl);
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : resolved.port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  let closing: Promise<void> | undefined;
  saver?.listening(`http://${host}:${port}`);
  return {
    url: `http://${host}:${port}`,
    organizationId: seed.organization.id,
    roomId: seed.room.id,
    token: seed.token.token,
    tokenType: 'Token',
    close: () => (closing ??= app.close()),
  };
}

/**
 * Listens on `port`; with port 0 and a state kept from before, first on the port it had then, so the addresses it
 * handed out (files' links) still work, else on any free one.
 */
async function listenOn(app: FastifyInstance, host: string, port: number, lastUrl: string | undefined): Promise<void> {
  const last = lastUrl === undefined ? 0 : Number(new URL(lastUrl).port);
  if (port === 0 && last > 0) {
    try {
      await app.listen({ host, port: last });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  await app.listen({ host, port });
}
