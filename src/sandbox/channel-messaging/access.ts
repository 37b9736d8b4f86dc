/**
 * Who is calling and what they may see. Channel messaging accepts any valid
 * API or access token of the organization (spec 03, Authentication; no scope).
 * A channel is visible to the caller when it is public or the caller is a
 * member; an invisible channel is "not found", as if it did not exist.
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticate } from '../auth.ts';
import { SandboxForbiddenError, SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import type { ApiToken } from '../model.ts';
import type { ChannelRecord, MemberRecord } from './model.ts';
import type { ChannelMessagingStore } from './store.ts';

const callers = new WeakMap<FastifyRequest, ApiToken>();

export function requireCaller(store: ChannelMessagingStore): onRequestAsyncHookHandler {
  return async (request) => {
    callers.set(request, authenticate(store.sandbox, request));
  };
}

/** The user ID of the token that authenticated the request. */
export function callerId(request: FastifyRequest): string {
  const token = callers.get(request);
  if (token === undefined) throw new SandboxForbiddenError('Authentication is required.');
  return token.userId;
}

export function canSee(store: ChannelMessagingStore, channel: ChannelRecord, userId: string): boolean {
  return channel.isPublic || store.memberOf(channel.id, userId) !== undefined;
}

export function requireChannel(
  store: ChannelMessagingStore,
  organizationId: string,
  channelId: string,
  userId: string,
): ChannelRecord {
  const channel = store.channels.get(channelId);
  if (channel === undefined || channel.organizationId !== organizationId || !canSee(store, channel, userId)) {
    throw new SandboxNotFoundError('Channel not found.');
  }
  return channel;
}

/** The caller's own membership; writing to a channel needs one. */
export function requireMembership(store: ChannelMessagingStore, channel: ChannelRecord, userId: string): MemberRecord {
  const member = store.memberOf(channel.id, userId);
  if (member === undefined) throw new SandboxForbiddenError('You are not a member of this channel.');
  return member;
}

/** Users named in a request field: each must be a user of the organization (400 naming the item). */
export function requireFieldUsers(store: ChannelMessagingStore, organizationId: string, field: string, ids: readonly string[]): void {
  const errors: Record<string, string[]> = {};
  ids.forEach((id, index) => {
    const user = store.sandbox.users.get(id);
    if (user === undefined || user.organizationId !== organizationId) errors[`${field}.${index}`] = ['User not found in this organization.'];
  });
  if (Object.keys(errors).length > 0) throw new SandboxValidationError(errors);
}

/**
 * A member named in a path by `member_id`: the user ID (the field of that
 * name), or the member record's own `id`.
 */
export function requireMember(store: ChannelMessagingStore, channel: ChannelRecord, memberId: string): MemberRecord {
  const member = store.membersOf(channel.id).find((m) => m.userId === memberId || m.id === memberId);
  if (member === undefined) throw new SandboxNotFoundError('Member not found.');
  return member;
}
