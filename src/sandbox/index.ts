/**
 * The sandbox: an in-process emulator of every endpoint of the platform's
 * three documents (sign-in, chats and users; builder, form data, reporting
 * and event listing; channel and unified messaging) on one address, with a
 * control API under /_sandbox that seeds data and plays the agent side.
 */
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
  const { app, seed, options: resolved } = buildSandboxApp(options);
  await app.listen({ host: resolved.host, port: resolved.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : resolved.port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    organizationId: seed.organization.id,
    roomId: seed.room.id,
    token: seed.token.token,
    tokenType: 'Token',
    close: () => (closing ??= app.close()),
  };
}
