/**
 * User preferences (spec 01): one per user, created with the documented
 * defaults on first read and deleted with the user. PATCH changes the given
 * fields; PUT needs every required field, and the two optional ones
 * (is_swimlane_visible, is_call_video_auto_start_enabled) fall back to their
 * defaults when omitted (docs/decisions.md).
 */
import {
  USER_PREFERENCES_DEFAULTS,
  type ReplaceUserPreferencesRequest,
  type UpdateUserPreferencesRequest,
  type UserPreferences,
} from '../../platform/schemas/users.ts';
import type { SandboxState } from '../state.ts';

type Defaults = typeof USER_PREFERENCES_DEFAULTS;
/** The stored preferences of one user (the resource without user_id). */
export type UserPreferencesValues = {
  -readonly [K in keyof Defaults]: Defaults[K] extends boolean ? boolean : Defaults[K] extends number ? number : string;
};

export function preferencesOf(state: SandboxState, userId: string): UserPreferencesValues {
  let values = state.preferences.get(userId);
  if (values === undefined) {
    values = { ...USER_PREFERENCES_DEFAULTS };
    state.preferences.set(userId, values);
  }
  return values;
}

export function preferencesView(state: SandboxState, userId: string): UserPreferences {
  return { user_id: userId, ...preferencesOf(state, userId) };
}

export function updatePreferences(state: SandboxState, userId: string, body: UpdateUserPreferencesRequest): UserPreferences {
  const values = preferencesOf(state, userId);
  for (const [key, value] of Object.entries(body)) if (value !== undefined) (values as Record<string, unknown>)[key] = value;
  return preferencesView(state, userId);
}

export function replacePreferences(state: SandboxState, userId: string, body: ReplaceUserPreferencesRequest): UserPreferences {
  state.preferences.set(userId, { ...USER_PREFERENCES_DEFAULTS, ...body });
  return preferencesView(state, userId);
}
