/**
 * User preferences (spec 01): one per user, created with the documented
 * defaults on first read and deleted with the user (a deleted user's
 * preferences answer 404 and are never created again). PATCH changes the given
 * fields; PUT needs every required field, and the two optional ones
 * (is_swimlane_visible, is_call_video_auto_start_enabled) fall back to their
 * defaults when omitted (docs/decisions/sandbox-users.md).
 */
import {
  USER_PREFERENCES_DEFAULTS,
  type ReplaceUserPreferencesRequest,
  type UpdateUserPreferencesRequest,
  type UserPreferences,
} from '../../platform/schemas/users.ts';
import type { User, UserPreferencesValues } from '../model.ts';
import type { SandboxState } from '../state.ts';
import { assertNotDeleted } from './accounts.ts';


/** The user's preferences, created with the defaults on first use; 404 for a deleted user. */
function preferencesOf(state: SandboxState, user: User): UserPreferencesValues {
  assertNotDeleted(user);
  let values = state.preferences.get(user.id);
  if (values === undefined) {
    values = { ...USER_PREFERENCES_DEFAULTS };
    state.preferences.set(user.id, values);
  }
  return values;
}

export function preferencesView(state: SandboxState, user: User): UserPreferences {
  return { user_id: user.id, ...preferencesOf(state, user) };
}

export function updatePreferences(state: SandboxState, user: User, body: UpdateUserPreferencesRequest): UserPreferences {
  const values = preferencesOf(state, user);
  for (const [key, value] of Object.entries(body)) if (value !== undefined) (values as Record<string, unknown>)[key] = value;
  return preferencesView(state, user);
}

export function replacePreferences(state: SandboxState, user: User, body: ReplaceUserPreferencesRequest): UserPreferences {
  assertNotDeleted(user);
  state.preferences.set(user.id, { ...USER_PREFERENCES_DEFAULTS, ...body });
  return preferencesView(state, user);
}
