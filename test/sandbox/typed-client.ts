/**
 * The typed client pointed at a test sandbox (its one address standing in
 * for url, builder_url and auth_url), closed when the test finishes, and the
 * platform error a call must end in.
 */
import { expect, onTestFinished } from 'vitest';
import { createPlatformClient, PlatformHttpError, type PlatformClient } from '../../src/platform/client.ts';

/** A client of the sandbox at `url`, one attempt per call so a refusal surfaces at once. */
export function platformClientFor(sb: { url: string; token: string; organizationId: string }, token = sb.token): PlatformClient {
  const client = createPlatformClient({
    url: sb.url,
    builderUrl: sb.url,
    authUrl: sb.url,
    token,
    tokenType: 'Token',
    organizationId: sb.organizationId,
    retry: { attempts: 1 },
  });
  onTestFinished(() => client.close());
  return client;
}

/** The PlatformHttpError `promise` rejects with (fails the test when it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<PlatformHttpError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PlatformHttpError);
  return err as PlatformHttpError;
}
