/**
 * User accounts of spec 01: creating, editing (PATCH: given fields; PUT: all
 * required fields, omitted optional ones reset to their defaults), deleting
 * (permanent: is_deleted, deleted_at; never one's own account; a deleted
 * account cannot be deleted again), and who may see or manage whom.
 *
 * Rules the document leaves open (docs/decisions/sandbox-users.md): e-mails are unique
 * case-insensitively across the sandbox (400 on email); gender is 1 (male),
 * 2 (female) or null; a deleted user's clients, preferences and API tokens go
 * with the account; a deleted user cannot be edited (404). Every rule is
 * checked before anything is written: a refused request changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CreateUserRequest, ReplaceUserRequest, UpdateUserRequest } from '../../platform/schemas/users.ts';
import { SandboxBadRequestError, SandboxForbiddenError, SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import type { ApiToken, User } from '../model.ts';
import { assertOrganizationAccess, assertUsersPermission, permissionsOf } from '../permissions.ts';
import type { SandboxState } from '../state.ts';
import { defaultProfile, firstNameOf, lastNameOf, profileOf } from './user-view.ts';

type CreateBody = z.output<typeof CreateUserRequest>;
type UpdateBody = z.output<typeof UpdateUserRequest>;
type ReplaceBody = z.output<typeof ReplaceUserRequest>;

/** 1 male, 2 female; null unknown. */
export const GENDERS = [1, 2] as const;

function checkFields(state: SandboxState, user: User | undefined, body: UpdateBody): void {
  if (body.gender !== undefined && body.gender !== null && !(GENDERS as readonly number[]).includes(body.gender)) {
    throw SandboxValidationError.field('gender', 'gender must be 1 (male), 2 (female) or null.');
  }
  if (typeof body.email === 'string') {
    const wanted = body.email.toLowerCase();
    for (const other of state.users.values()) {
      if (other.id !== user?.id && other.email?.toLowerCase() === wanted) {
        throw SandboxValidationError.field('email', 'A user with this email already exists.');
      }
    }
  }
  // Users seeded without an e-mail keep working; the rule applies when e-mail or is_bot change.
  if (body.email !== undefined || body.is_bot !== undefined) {
    const email = body.email !== undefined ? body.email : user?.email;
    const isBot = body.is_bot ?? user?.profile?.isBot ?? false;
    if ((email === null || email === undefined) && !isBot) {
      throw SandboxValidationError.field('email', 'email may be null only when is_bot is true.');
    }
  }
}

/** Applies a body checkFields accepted: nothing here may fail, so a refused request changes nothing. */
function applyFields(state: SandboxState, user: User, body: UpdateBody): User {
  const profile = profileOf(user);
  if (body.email !== undefined) user.email = body.email;
  if (body.first_name !== undefined) user.firstName = body.first_name;
  if (body.last_name !== undefined) user.lastName = body.last_name;
  if (body.is_manager !== undefined) profile.isManager = body.is_manager;
  if (body.alias !== undefined) profile.alias = body.alias;
  if (body.gender !== undefined) profile.gender = body.gender;
  if (body.birthday !== undefined) profile.birthday = body.birthday;
  if (body.phone !== undefined) profile.phone = body.phone;
  if (body.title !== undefined) profile.title = body.title;
  if (body.is_online_enabled !== undefined) profile.isOnlineEnabled = body.is_online_enabled;
  if (body.is_bot !== undefined) profile.isBot = body.is_bot;
  // The names the chats show (sender_name, sender_public_name) follow the account.
  user.name = [firstNameOf(user), lastNameOf(user)].filter((n) => n !== '').join(' ');
  user.publicName = profile.alias ?? firstNameOf(user);
  profile.updatedAt = state.now();
  return user;
}

export function createUser(state: SandboxState, organizationId: string, body: CreateBody): User {
  checkFields(state, undefined, body);
  const now = state.now();
  const user: User = {
    id: randomUUID(),
    organizationId,
    name: `${body.first_name} ${body.last_name}`,
    publicName: body.alias ?? body.first_name,
    createdAt: now,
    profile: defaultProfile(now),
  };
  applyFields(state, user, body);
  state.users.set(user.id, user);
  return user;
}

export function updateUser(state: SandboxState, user: User, body: UpdateBody): User {
  assertNotDeleted(user);
  checkFields(state, user, body);
  return applyFields(state, user, body);
}

/** PUT: every optional field not given goes back to its default. */
export function replaceUser(state: SandboxState, user: User, body: ReplaceBody): User {
  const defaults = defaultProfile(user.createdAt);
  return updateUser(state, user, {
    is_manager: defaults.isManager,
    alias: defaults.alias,
    gender: defaults.gender,
    birthday: defaults.birthday,
    phone: defaults.phone,
    title: defaults.title,
    is_bot: defaults.isBot,
    ...body,
  });
}

export function deleteUser(state: SandboxState, caller: ApiToken, user: User): void {
  assertNotDeleted(user);
  if (user.id === caller.userId) throw new SandboxBadRequestError('You cannot delete your own account.');
  const profile = profileOf(user);
  profile.deletedAt = state.now();
  profile.updatedAt = profile.deletedAt;
  for (const [id, client] of state.userClients) if (client.userId === user.id) state.userClients.delete(id);
  state.preferences.delete(user.id);
  for (const [value, token] of state.tokens) if (token.userId === user.id) state.tokens.delete(value);
}

export function isDeleted(user: User): boolean {
  return user.profile?.deletedAt !== null && user.profile?.deletedAt !== undefined;
}

/** 404 for a deleted account: it cannot be edited, nor its preferences, clients or avatar. */
export function assertNotDeleted(user: User): void {
  if (isDeleted(user)) throw new SandboxNotFoundError('User not found (the account was deleted).');
}

/**
 * /api/v5/users/<user_id>: the caller's own account, or a user of the
 * caller's organization when the token has organization access and the users
 * permission. Anything else, unknown ids included, is "no access to user" (403).
 */
export function userForCaller(state: SandboxState, caller: ApiToken, userId: string): User {
  const user = state.users.get(userId);
  if (user !== undefined && user.id === caller.userId) return user;
  const permissions = permissionsOf(caller);
  if (user === undefined || user.organizationId !== caller.organizationId || !permissions.organizationAccess || !permissions.users) {
    throw new SandboxForbiddenError('You do not have access to this user.');
  }
  return user;
}

/** /api/v5/orgs/<organization_id>/users/<user_id>: the user of that organization, or 404. */
export function userOfOrganization(state: SandboxState, organizationId: string, userId: string): User {
  const user = state.users.get(userId);
  if (user === undefined || user.organizationId !== organizationId) throw new SandboxNotFoundError('User not found.');
  return user;
}

/** Managing another user needs the users permission; one's own account does not. */
export function assertMayManage(caller: ApiToken, userId: string): void {
  assertOrganizationAccess(caller);
  if (userId !== caller.userId) assertUsersPermission(caller);
}
