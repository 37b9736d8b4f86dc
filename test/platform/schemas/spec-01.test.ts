import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SPEC_01_ENDPOINTS } from '../../../src/platform/endpoints/spec-01.ts';
import {
  Chat,
  ChatListQuery,
  ChatPage,
  DecryptedChatListQuery,
  DecryptedChatPage,
  EndChatRequest,
} from '../../../src/platform/schemas/chats.ts';
import {
  AuthorizeQuery,
  CallbackQuery,
  IdTokenClaims,
  ImplicitAuthResponse,
  TokenResponse,
  idTokenClaimsFor,
  parseCallbackMessage,
  socketUrlWithToken,
} from '../../../src/platform/schemas/sign-in.ts';
import {
  Avatar,
  CreateUserRequest,
  ReplaceUserPreferencesRequest,
  ReplaceUserRequest,
  UpdateUserPreferencesRequest,
  UpdateUserRequest,
  User,
  UserClient,
  UserClientRequest,
  UserListQuery,
  USER_PREFERENCES_DEFAULTS,
  UserPreferences,
} from '../../../src/platform/schemas/users.ts';
import { chat as fixtureChat } from '../fixtures.ts';

/** Every endpoint of spec 01, copied by hand from the document's "Endpoints" section. */
const DOCUMENTED = [
  'GET /authorize',
  'GET /callback',
  'POST /token', // method not shown; see the endpoint list
  'GET /api/v5/orgs/<organization_id>/rooms/<room_id>/chats',
  'GET /api/v5/orgs/<organization_id>/owned_chats',
  'GET /api/v5/orgs/<organization_id>/rooms/<room_id>/decrypted-chats',
  'GET /api/v5/orgs/<organization_id>/owned_chats/<chat_id>',
  'PATCH /api/v5/orgs/<organization_id>/owned_chats/<chat_id>',
  'PUT /api/v5/orgs/<organization_id>/owned_chats/<chat_id>',
  'POST /api/v5/users/<user_id>/chats',
  'GET /api/v5/users/me',
  'GET /api/v5/users/<user_id>',
  'PATCH /api/v5/users/<user_id>',
  'PUT /api/v5/users/<user_id>',
  'POST /api/v5/orgs/<organization_id>/users',
  'GET /api/v5/orgs/<organization_id>/users',
  'GET /api/v5/orgs/<organization_id>/users/<user_id>',
  'PATCH /api/v5/orgs/<organization_id>/users/<user_id>',
  'PUT /api/v5/orgs/<organization_id>/users/<user_id>',
  'DELETE /api/v5/orgs/<organization_id>/users/<user_id>',
  'GET /api/v5/orgs/<organization_id>/users/<user_id>/preferences',
  'POST /api/v5/orgs/<organization_id>/users/<user_id>/clients',
  'PUT /api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
  'PATCH /api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
  'DELETE /api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
  'GET /api/v5/orgs/<organization_id>/users/<user_id>/clients',
  'GET /api/v5/users/<user_id>/preferences',
  'PATCH /api/v5/users/<user_id>/preferences',
  'PUT /api/v5/users/<user_id>/preferences',
  'GET /api/v5/users/<user_id>/avatar',
  'GET /api/v5/orgs/<organization_id>/users/<user_id>/avatar',
  'POST /api/v5/users/<user_id>/avatar',
  'POST /api/v5/orgs/<organization_id>/users/<user_id>/avatar',
];

const ORG = '0b4f1c9e-5d7a-4e2b-9c3d-1a2b3c4d5e6f';
const ROOM = '7d0c2e4a-8b1f-4c6d-9e2a-3b4c5d6e7f80';
const CHAT = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const USER = '11111111-2222-4333-8444-555555555555';
const APP = '66666666-7777-4888-9999-aaaaaaaaaaaa';
const T = '2025-01-02T03:04:05Z';

/** The issues of a failed parse as `path: message`. */
function issues(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const fullChat = {
  ...fixtureChat, chat_type: 'visitor', is_private: false, is_real_conversation: true, is_autosuggested: false,
  is_encrypted: true, encrypted_symmetric_key: 'a2V5', has_messages: true, has_user_messages: true, has_visitor_messages: true,
  first_visitor_message_url: 'https://shop.example/cart', first_visitor_message_url_title: 'Cart', autosuggest_url: null,
  autosuggest_url_title: null, tag_count: 0, member_count: 2, user_member_count: 1, visitor_member_count: 1,
  present_participant_count: 0, present_user_participant_count: 0, present_visitor_participant_count: 0,
  visitor_wait_time: 12.5, messaging_channel: 'webchat', token: null, legacy_conversation_state: null, legacy_room_id: null,
};

const user = {
  id: USER, email: 'ann@example.com', organization_id: ORG, organization: { id: ORG, name: 'Acme' }, first_name: 'Ann',
  last_name: 'Lee', full_name: 'Ann Lee', is_manager: false, is_staff: false, alias: null, gender: null, birthday: '1990-05-01',
  phone: null, title: 'Support', created_at: T, updated_at: T, deleted_at: null, avatar_id: null, avatar: null,
  is_online_enabled: true, is_online: false, is_present: false, current_chat_count: 0, is_deleted: false, is_bot: false,
  is_created_by_sso: false,
};

describe('SPEC_01_ENDPOINTS', () => {
  const keys = SPEC_01_ENDPOINTS.map((e) => `${e.method} ${e.path}`);

  it('has unique lowerCamelCase ids and unique method+path', () => {
    const ids = SPEC_01_ENDPOINTS.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('lists exactly the documented endpoints', () => {
    expect([...keys].sort()).toEqual([...DOCUMENTED].sort());
    expect(SPEC_01_ENDPOINTS).toHaveLength(33);
  });

  it('puts sign-in on auth (authorize redirects) and the rest on api; avatar uploads are multipart', () => {
    for (const e of SPEC_01_ENDPOINTS) {
      expect(e.upstream).toBe(e.path.startsWith('/api/v5/') ? 'api' : 'auth');
      expect(e.redirects ?? false).toBe(e.id === 'authorize');
      expect(e.multipart ?? false).toBe(e.path.endsWith('/avatar') && e.method === 'POST');
      expect(e.source).toMatch(/^01 /);
    }
    const byId = new Map(SPEC_01_ENDPOINTS.map((e) => [e.id, e]));
    expect(byId.get('endOwnedChat')).toMatchObject({ method: 'PATCH', body: EndChatRequest });
    expect(byId.get('listChats')?.query).toBe(ChatListQuery);
  });
});

describe('documented objects parse', () => {
  it('chat, with every field of the table, and the older minimal fixture', () => {
    expect(Chat.parse(fullChat)).toEqual(fullChat);
    expect(Chat.safeParse(fixtureChat).success).toBe(true);
    const page = { next: `https://x.example/api/v5/orgs/${ORG}/owned_chats?cursor=abc`, previous: null, results: [fullChat] };
    expect(ChatPage.parse(page).results).toHaveLength(1);
  });

  it('decrypted chats page with count and messages', () => {
    const message = {
      id: USER, type: 'msg', chat_id: CHAT, created_at: T, sender_id: 'v-1', sender_type: 'visitor', sender_name: 'Visitor',
      content: 'Hello', is_encrypted: true, encrypted_message: null,
    };
    const decrypted = {
      id: CHAT, created_at: T, updated_at: T, ended_at: null, room_id: ROOM, room_organization_id: ORG, room_name: 'Support',
      message_count: 1, is_encrypted: true, messages: [message],
    };
    expect(DecryptedChatPage.parse({ count: 1, next: null, previous: null, results: [decrypted] }).count).toBe(1);
    expect(issues(DecryptedChatPage, { next: null, previous: null, results: [] })).toEqual([
      'count: Invalid input: expected number, received undefined',
    ]);
  });

  it('user, user client, preferences, avatar', () => {
    expect(User.parse(user).email).toBe('ann@example.com');
    const client = {
      id: APP, presence_expires_in: 60, presence_expires_at: T, is_about_to_expire: false, created_at: T, updated_at: T,
    };
    expect(UserClient.parse(client).presence_expires_in).toBe(60);
    expect(UserPreferences.parse({ user_id: USER, ...USER_PREFERENCES_DEFAULTS }).desktop_volume).toBe(100);
    expect(Avatar.parse({ id: APP, url: 'https://cdn.example/a.png', created_at: T, updated_at: T }).url).toContain('a.png');
  });

  it('sign-in: callback message, ID-token claims, token answer, socket URL', () => {
    const hash = `#token_type=bearer&access_token=at&id_token=jwt&state=s1&expires_in=3600&socket_url=wss%3A%2F%2Fws.example%2Fs`;
    const params = parseCallbackMessage(`svc-auth-callback:${hash}`);
    expect(ImplicitAuthResponse.parse(params)).toMatchObject({ expires_in: 3600, socket_url: 'wss://ws.example/s', state: 's1' });
    expect(parseCallbackMessage('other:token_type=bearer')).toBeUndefined();
    expect(ImplicitAuthResponse.parse({ error: 'login_required', state: 's1' })).toMatchObject({ error: 'login_required' });

    const claims = { iss: 'https://auth.example/authorize', sub: USER, aud: [APP], exp: 1_800_000_000, iat: 1_700_000_000, nonce: 'n1', org: ORG };
    expect(IdTokenClaims.parse({ ...claims, name: 'Ann Lee', email: 'ann@example.com', email_verified: true }).org).toBe(ORG);
    expect(issues(IdTokenClaims, { ...claims, aud: [APP, APP] })).toEqual(['aud: aud must have exactly one element.']);
    expect(issues(idTokenClaimsFor({ clientId: APP, nonce: 'other' }), claims)).toEqual([
      'nonce: nonce does not match the authentication request.',
    ]);

    expect(TokenResponse.parse({ access_token: 'at' }).access_token).toBe('at');
    expect(socketUrlWithToken('wss://ws.example/s', 'a b')).toBe('wss://ws.example/s?token=a%20b');
    expect(socketUrlWithToken('wss://ws.example/s?v=2', 't')).toBe('wss://ws.example/s?v=2&token=t');
  });
});

describe('strict requests', () => {
  const authorize = { scope: 'openid profile', response_type: 'id_token token', client_id: APP, redirect_uri: 'https://app.example/cb', nonce: 'n1' };

  it('accept the documented requests', () => {
    expect(AuthorizeQuery.parse({ ...authorize, state: 's', prompt: 'none' })).toMatchObject({ prompt: 'none' });
    expect(AuthorizeQuery.safeParse({ ...authorize, response_type: 'code', scope: 'openid' }).success).toBe(true);
    expect(CallbackQuery.safeParse({ target: 'opener', origin: 'https://app.example:8443', client_id: APP }).success).toBe(true);
    expect(ChatListQuery.parse({ is_waiting: 'false', has_messages: true, created_at_after: T, cursor: 'c' })).toEqual({
      is_waiting: 'false', has_messages: 'true', created_at_after: T, cursor: 'c',
    });
    expect(DecryptedChatListQuery.parse({ limit: '50' })).toEqual({ limit: '50' });
    expect(EndChatRequest.parse({ is_ended: true })).toEqual({ is_ended: true });
    expect(CreateUserRequest.safeParse({ email: 'bob@example.com', first_name: 'Bob', last_name: 'Ray' }).success).toBe(true);
    expect(CreateUserRequest.safeParse({ email: null, first_name: 'Bot', last_name: 'One', is_bot: true }).success).toBe(true);
    expect(UpdateUserRequest.safeParse({ alias: null, birthday: '1990-05-01' }).success).toBe(true);
    expect(UserListQuery.safeParse({ ordering: '-email', is_deleted: 'true' }).success).toBe(true);
    expect(UserClientRequest.safeParse({ presence_expires_in: 60 }).success).toBe(true);
    const { is_swimlane_visible: _a, is_call_video_auto_start_enabled: _b, ...requiredPrefs } = USER_PREFERENCES_DEFAULTS;
    expect(ReplaceUserPreferencesRequest.safeParse(requiredPrefs).success).toBe(true);
    expect(UpdateUserPreferencesRequest.safeParse({ desktop_volume: 0 }).success).toBe(true);
  });

  it('refuse unknown and read-only fields by name', () => {
    expect(issues(AuthorizeQuery, { ...authorize, login_hint: 'ann' })).toEqual([': Unrecognized key: "login_hint"']);
    expect(issues(EndChatRequest, { is_ended: true, is_waiting: false })).toEqual([': Unrecognized key: "is_waiting"']);
    expect(issues(ChatListQuery, { page_size: '10' })).toEqual([': Unrecognized key: "page_size"']);
    expect(issues(UpdateUserRequest, { is_staff: true })).toEqual([': Unrecognized key: "is_staff"']);
    expect(issues(UpdateUserPreferencesRequest, { user_id: USER })).toEqual([': Unrecognized key: "user_id"']);
  });

  it('refuse out-of-limit values naming the field', () => {
    expect(issues(AuthorizeQuery, { ...authorize, scope: 'profile email' })).toEqual(['scope: scope must include openid.']);
    expect(issues(AuthorizeQuery, { ...authorize, scope: 'openid offline' })[0]).toMatch(/^scope: Unknown scope value\(s\): offline/);
    expect(issues(AuthorizeQuery, { ...authorize, response_type: 'token' })[0]).toMatch(/^response_type: /);
    expect(issues(AuthorizeQuery, { ...authorize, redirect_uri: 'http://app.example/cb' })).toEqual([
      'redirect_uri: redirect_uri must be an https URL.',
    ]);
    expect(issues(AuthorizeQuery, { ...authorize, prompt: 'consent' })).toEqual(['prompt: prompt must be none or login.']);
    const { nonce: _n, ...noNonce } = authorize;
    expect(issues(AuthorizeQuery, noNonce)).toEqual(['nonce: nonce is required.']);
    expect(issues(CallbackQuery, { target: 'parent', origin: '*', client_id: APP })).toEqual([
      'origin: The wildcard origin * is not allowed.',
    ]);
    expect(issues(CallbackQuery, { target: 'top', origin: 'https://app.example/path', client_id: APP })).toHaveLength(2);
    expect(issues(EndChatRequest, { is_ended: false })).toEqual(['is_ended: is_ended must be true.']);
    expect(issues(ChatListQuery, { is_ended: 'yes', ordering: 'updated_at' })).toHaveLength(2);
    expect(issues(ChatListQuery, { created_at_before: 'yesterday' })[0]).toMatch(/^created_at_before: /);
    expect(issues(DecryptedChatListQuery, { limit: '0' })[0]).toMatch(/^limit: /);
    expect(issues(CreateUserRequest, { email: null, first_name: 'A', last_name: 'B' })).toEqual([
      'email: email may be null only when is_bot is true.',
    ]);
    expect(issues(CreateUserRequest, { email: 'not-an-email', first_name: '', last_name: 'B', alias: '' })).toEqual([
      'email: Enter a valid email address.',
      'first_name: first_name may not be blank.',
      'alias: alias may not be blank.',
    ]);
    expect(issues(ReplaceUserRequest, { email: 'a@example.com', first_name: 'A', last_name: 'B' })[0]).toMatch(/^is_online_enabled: /);
    expect(issues(UserClientRequest, { presence_expires_in: 0 })[0]).toMatch(/^presence_expires_in: /);
    expect(issues(UpdateUserPreferencesRequest, { desktop_volume: 101, chat_capacity: -1, ui_language_code: 'eng' })).toEqual([
      'chat_capacity: Ensure this value is greater than or equal to 0.',
      'ui_language_code: Enter an ISO 639-1 language code, e.g. en.',
      'desktop_volume: Ensure this value is less than or equal to 100.',
    ]);
    expect(issues(ReplaceUserPreferencesRequest, { desktop_volume: 50 }).length).toBeGreaterThan(5);
  });
});

describe('loose responses', () => {
  it('keep unknown fields', () => {
    expect(Chat.parse({ ...fullChat, new_field: 1 })).toHaveProperty('new_field', 1);
    expect(User.parse({ ...user, extra: { a: 1 } })).toHaveProperty('extra', { a: 1 });
    expect(User.parse(user).organization).toEqual({ id: ORG, name: 'Acme' });
    expect(UserPreferences.parse({ user_id: USER, ...USER_PREFERENCES_DEFAULTS, theme: 'dark' })).toHaveProperty('theme', 'dark');
    expect(TokenResponse.parse({ access_token: 'at', scope: 'openid' })).toHaveProperty('scope', 'openid');
    expect(IdTokenClaims.parse({
      iss: 'i', sub: USER, aud: [APP], exp: 2, iat: 1, nonce: 'n', org: ORG, auth_time: 1,
    })).toHaveProperty('auth_time', 1);
  });
});
