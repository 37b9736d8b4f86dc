/**
 * User clients and presence (spec 01, "User client" and its state rows).
 *
 * A client is present until presence_expires_at = last registration or
 * refresh + presence_expires_in. Refreshing overwrites presence_expires_in
 * and restarts the period; refreshing an expired or unknown client id
 * re-registers it under that id. DELETE removes the client, so its presence
 * ends at once. is_about_to_expire turns true once less than a third of the
 * period is left (the document says only "later becomes true";
 * docs/decisions/sandbox-users.md). Times follow the sandbox clock.
 */
import { randomUUID } from 'node:crypto';
import type { UserClient, UserClientRequest } from '../../platform/schemas/users.ts';
import type { z } from 'zod';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import type { UserClientRecord } from '../model.ts';
import type { SandboxState } from '../state.ts';

const ABOUT_TO_EXPIRE_FRACTION = 1 / 3;

const expiresAt = (client: UserClientRecord) => client.refreshedAt + client.presenceExpiresIn * 1000;

function isClientPresent(state: SandboxState, client: UserClientRecord): boolean {
  return expiresAt(client) > state.now();
}

export function isUserPresent(state: SandboxState, userId: string): boolean {
  for (const client of state.userClients.values()) if (client.userId === userId && isClientPresent(state, client)) return true;
  return false;
}

export function clientsOf(state: SandboxState, userId: string): UserClientRecord[] {
  return [...state.userClients.values()].filter((c) => c.userId === userId);
}

export function clientView(state: SandboxState, client: UserClientRecord): UserClient {
  const remaining = expiresAt(client) - state.now();
  return {
    id: client.id,
    gcm_token: client.gcmToken,
    subscribed_channels: client.subscribedChannels,
    presence_expires_in: client.presenceExpiresIn,
    presence_expires_at: new Date(expiresAt(client)).toISOString(),
    is_about_to_expire: remaining < client.presenceExpiresIn * 1000 * ABOUT_TO_EXPIRE_FRACTION,
    created_at: new Date(client.createdAt).toISOString(),
    updated_at: new Date(client.updatedAt).toISOString(),
  };
}

type ClientBody = z.output<typeof UserClientRequest>;

/**
 * A client is stored only when its view can be written: the request schema
 * caps presence_expires_in, and this guards the store against any period whose
 * expiry is not a valid date (it would break every later listing).
 */
function assertRenderable(state: SandboxState, presenceExpiresIn: number): void {
  const expiry = state.now() + presenceExpiresIn * 1000;
  if (!Number.isSafeInteger(presenceExpiresIn) || presenceExpiresIn < 1 || Number.isNaN(new Date(expiry).getTime())) {
    throw SandboxValidationError.field('presence_expires_in', 'presence_expires_in is too large: its expiry is not a valid date.');
  }
}

export function registerClient(state: SandboxState, userId: string, body: ClientBody, id: string = randomUUID()): UserClientRecord {
  assertRenderable(state, body.presence_expires_in);
  const now = state.now();
  const client: UserClientRecord = {
    id,
    userId,
    presenceExpiresIn: body.presence_expires_in,
    refreshedAt: now,
    gcmToken: body.gcm_token ?? null,
    subscribedChannels: body.subscribed_channels ?? [],
    createdAt: now,
    updatedAt: now,
  };
  state.userClients.set(id, client);
  return client;
}

/** Refresh: the latest presence_expires_in applies from now; an expired client (or unknown id) is registered again. */
export function refreshClient(state: SandboxState, userId: string, clientId: string, body: ClientBody): UserClientRecord {
  const existing = state.userClients.get(clientId);
  if (existing !== undefined && existing.userId !== userId) throw new SandboxNotFoundError('User client not found.');
  assertRenderable(state, body.presence_expires_in);
  if (existing === undefined || !isClientPresent(state, existing)) {
    const again = registerClient(state, userId, body, clientId);
    if (existing !== undefined) again.createdAt = existing.createdAt;
    return again;
  }
  const now = state.now();
  existing.presenceExpiresIn = body.presence_expires_in;
  existing.refreshedAt = now;
  existing.updatedAt = now;
  if (body.gcm_token !== undefined) existing.gcmToken = body.gcm_token;
  if (body.subscribed_channels !== undefined) existing.subscribedChannels = body.subscribed_channels;
  return existing;
}
