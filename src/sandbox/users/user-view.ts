/**
 * The User resource of spec 01, computed from the sandbox's records. Users
 * made before the users interface (seeded agents, control-API users without
 * names) read their first and last name from `name` and take the defaults of
 * every other field.
 *
 * is_present: at least one user client with unexpired presence; is_online:
 * is_online_enabled and is_present, never one without the other.
 */
import type { User as UserResource } from '../../platform/schemas/users.ts';
import type { User, UserProfile } from '../model.ts';
import type { SandboxState } from '../state.ts';
import { iso, isoOrNull } from '../time.ts';
import { isUserPresent } from './presence.ts';

export function defaultProfile(createdAt: number): UserProfile {
  return {
    alias: null,
    gender: null,
    birthday: null,
    phone: null,
    title: null,
    isManager: false,
    isBot: false,
    isStaff: false,
    isOnlineEnabled: true,
    isCreatedBySso: false,
    updatedAt: createdAt,
    deletedAt: null,
    avatarId: null,
  };
}

/** The user's profile, created with defaults on first use so later edits have a place to go. */
export function profileOf(user: User): UserProfile {
  return (user.profile ??= defaultProfile(user.createdAt));
}

export function firstNameOf(user: User): string {
  return user.firstName ?? user.name.split(/\s+/)[0] ?? user.name;
}

export function lastNameOf(user: User): string {
  return user.lastName ?? user.name.split(/\s+/).slice(1).join(' ');
}

/** The absolute URL an avatar is served at. */
export type AvatarUrl = (avatarId: string) => string;

export function userView(state: SandboxState, user: User, avatarUrl: AvatarUrl): UserResource {
  const profile = profileOf(user);
  const organization = state.organizations.get(user.organizationId);
  const present = isUserPresent(state, user.id);
  const currentChats = [...state.chats.values()].filter((c) => !c.isEnded && c.userMemberIds.includes(user.id)).length;
  return {
    id: user.id,
    email: user.email === undefined ? null : user.email,
    organization_id: user.organizationId,
    organization: { id: user.organizationId, name: organization?.name ?? '' },
    first_name: firstNameOf(user),
    last_name: lastNameOf(user),
    full_name: [firstNameOf(user), lastNameOf(user)].filter((n) => n !== '').join(' '),
    is_manager: profile.isManager,
    is_staff: profile.isStaff,
    alias: profile.alias,
    gender: profile.gender,
    birthday: profile.birthday,
    phone: profile.phone,
    title: profile.title,
    created_at: iso(user.createdAt),
    updated_at: iso(profile.updatedAt),
    deleted_at: isoOrNull(profile.deletedAt),
    avatar_id: profile.avatarId,
    avatar: profile.avatarId === null ? null : { id: profile.avatarId, url: avatarUrl(profile.avatarId) },
    is_online_enabled: profile.isOnlineEnabled,
    is_online: profile.isOnlineEnabled && present,
    is_present: present,
    current_chat_count: currentChats,
    is_deleted: profile.deletedAt !== null,
    is_bot: profile.isBot,
    is_created_by_sso: profile.isCreatedBySso,
  };
}
