/**
 * Spec 01 (sign-in, chats, users) as data: one entry per documented endpoint,
 * paths exactly as the document writes them. Sign-in is served by {auth_url}
 * ('auth'); chats and users by {base_url}/{api_url} ('api').
 *
 * Not listed, because the document gives no path: the chat with a visitor in
 * a room, the public visitor chat creation, the PATCH of the UI language,
 * and the WebSocket (socket_url comes from the sign-in answer).
 */
import {
  ChatListQuery,
  ChatPage,
  Chat,
  CreateEmptyChatRequest,
  CreateEmptyChatResponse,
  DecryptedChatListQuery,
  DecryptedChatPage,
  EndChatRequest,
} from '../schemas/chats.ts';
import { AuthorizeQuery, CallbackQuery, TokenResponse } from '../schemas/sign-in.ts';
import {
  Avatar,
  CreateUserRequest,
  ReplaceUserPreferencesRequest,
  ReplaceUserRequest,
  UpdateUserPreferencesRequest,
  UpdateUserRequest,
  User,
  UserClient,
  UserClientPage,
  UserClientRequest,
  UserListQuery,
  UserPage,
  UserPreferences,
} from '../schemas/users.ts';
import { CHATS, OWNED_CHAT_CALLS } from './spec-01-owned-chats.ts';
import type { EndpointSpec } from './types.ts';

const SIGN_IN = '01 Sign-in endpoints';
const USERS = '01 Users';
const CLIENTS = '01 User clients';
const PREFERENCES = '01 Preferences and avatar';

const SIGN_IN_ENDPOINTS = [
  {
    id: 'authorize', method: 'GET', path: '/authorize', upstream: 'auth', source: SIGN_IN, redirects: true,
    summary: 'Start sign-in (implicit or code flow, or a silent refresh with prompt=none); answers with a redirect to redirect_uri.',
    query: AuthorizeQuery,
  },
  {
    id: 'getAuthCallback', method: 'GET', path: '/callback', upstream: 'auth', source: SIGN_IN,
    summary: 'Landing page for pop-up or frame re-authentication: posts "svc-auth-callback:<hash>" to the parent or opener (an HTML page).',
    query: CallbackQuery,
  },
  {
    // Method and parameters are not shown; OAuth 2.0 token endpoints take POST (RFC 6749 §3.2).
    id: 'exchangeToken', method: 'POST', path: '/token', upstream: 'auth', source: SIGN_IN,
    summary: 'Code flow: exchange the code for access_token (and possibly id_token) with the app ID and secret.',
    response: TokenResponse,
  },
] as const satisfies readonly EndpointSpec[];

const CHAT_ENDPOINTS = [
  {
    id: 'listChats', method: 'GET', path: '/api/v5/orgs/<organization_id>/rooms/<room_id>/chats', upstream: 'api', source: CHATS,
    summary: 'Chats of a room, paginated, newest first by default.', query: ChatListQuery, response: ChatPage,
  },
  {
    id: 'listOwnedChats', method: 'GET', path: '/api/v5/orgs/<organization_id>/owned_chats', upstream: 'api', source: CHATS,
    summary: 'Chats of the rooms the organization owns, paginated.', query: ChatListQuery, response: ChatPage,
  },
  {
    id: 'listDecryptedChats', method: 'GET', path: '/api/v5/orgs/<organization_id>/rooms/<room_id>/decrypted-chats',
    upstream: 'api', source: CHATS,
    summary: 'Decrypted chats of a room with their messages; needs the X-PRIVATE-KEY header (RSA private key on one line).',
    query: DecryptedChatListQuery, response: DecryptedChatPage,
  },
  ...OWNED_CHAT_CALLS,
  {
    id: 'replaceOwnedChat', method: 'PUT', path: '/api/v5/orgs/<organization_id>/owned_chats/<chat_id>', upstream: 'api', source: CHATS,
    summary: 'End the chat, PUT form (is_ended true); it is locked permanently.', body: EndChatRequest, response: Chat,
  },
  {
    id: 'createEmptyChat', method: 'POST', path: '/api/v5/users/<user_id>/chats', upstream: 'api', source: CHATS,
    summary: 'Create an empty chat (type operator); payload beyond messaging_channel and the answer: not shown.',
    body: CreateEmptyChatRequest, response: CreateEmptyChatResponse,
  },
] as const satisfies readonly EndpointSpec[];

const USER_ENDPOINTS = [
  {
    id: 'getMe', method: 'GET', path: '/api/v5/users/me', upstream: 'api', source: USERS,
    summary: 'The authenticated user (organization_id tells the organization).', response: User,
  },
  {
    id: 'getUser', method: 'GET', path: '/api/v5/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'One user.', response: User,
  },
  {
    id: 'updateUser', method: 'PATCH', path: '/api/v5/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'Update some attributes of a user.', body: UpdateUserRequest, response: User,
  },
  {
    id: 'replaceUser', method: 'PUT', path: '/api/v5/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'Replace a user: required attributes needed, omitted optional ones reset to defaults.', body: ReplaceUserRequest, response: User,
  },
  {
    id: 'createOrgUser', method: 'POST', path: '/api/v5/orgs/<organization_id>/users', upstream: 'api', source: USERS,
    summary: 'Create a user in the organization.', body: CreateUserRequest, response: User,
  },
  {
    id: 'listOrgUsers', method: 'GET', path: '/api/v5/orgs/<organization_id>/users', upstream: 'api', source: USERS,
    summary: 'Users of the organization, paginated.', query: UserListQuery, response: UserPage,
  },
  {
    id: 'getOrgUser', method: 'GET', path: '/api/v5/orgs/<organization_id>/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'One user of the organization.', response: User,
  },
  {
    id: 'updateOrgUser', method: 'PATCH', path: '/api/v5/orgs/<organization_id>/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'Update some attributes of a user of the organization (own details need no users permission).',
    body: UpdateUserRequest, response: User,
  },
  {
    id: 'replaceOrgUser', method: 'PUT', path: '/api/v5/orgs/<organization_id>/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'Replace a user of the organization.', body: ReplaceUserRequest, response: User,
  },
  {
    id: 'deleteOrgUser', method: 'DELETE', path: '/api/v5/orgs/<organization_id>/users/<user_id>', upstream: 'api', source: USERS,
    summary: 'Permanently disable the account (not one\'s own); 204.',
  },
  {
    id: 'getOrgUserPreferences', method: 'GET', path: '/api/v5/orgs/<organization_id>/users/<user_id>/preferences',
    upstream: 'api', source: USERS, summary: 'Preferences of a user of the organization.', response: UserPreferences,
  },
] as const satisfies readonly EndpointSpec[];

const CLIENT_ENDPOINTS = [
  {
    id: 'createUserClient', method: 'POST', path: '/api/v5/orgs/<organization_id>/users/<user_id>/clients', upstream: 'api',
    source: CLIENTS, summary: 'Register a user client (presence); keep its id to refresh it.', body: UserClientRequest, response: UserClient,
  },
  {
    id: 'listUserClients', method: 'GET', path: '/api/v5/orgs/<organization_id>/users/<user_id>/clients', upstream: 'api',
    source: CLIENTS, summary: 'The user\'s clients, paginated.', response: UserClientPage,
  },
  {
    id: 'updateUserClient', method: 'PATCH', path: '/api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
    upstream: 'api', source: CLIENTS, summary: 'Refresh presence (re-registers an expired or unknown client).',
    body: UserClientRequest, response: UserClient,
  },
  {
    id: 'replaceUserClient', method: 'PUT', path: '/api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
    upstream: 'api', source: CLIENTS, summary: 'Refresh presence, PUT form (re-registers an expired or unknown client).',
    body: UserClientRequest, response: UserClient,
  },
  {
    id: 'deleteUserClient', method: 'DELETE', path: '/api/v5/orgs/<organization_id>/users/<user_id>/clients/<client_id>',
    upstream: 'api', source: CLIENTS, summary: 'Unregister a client; its presence ends immediately; 204.',
  },
] as const satisfies readonly EndpointSpec[];

const PREFERENCE_ENDPOINTS = [
  {
    id: 'getUserPreferences', method: 'GET', path: '/api/v5/users/<user_id>/preferences', upstream: 'api', source: PREFERENCES,
    summary: 'Read a user\'s preferences.', response: UserPreferences,
  },
  {
    id: 'updateUserPreferences', method: 'PATCH', path: '/api/v5/users/<user_id>/preferences', upstream: 'api', source: PREFERENCES,
    summary: 'Update some preferences; omitted ones keep their values.', body: UpdateUserPreferencesRequest, response: UserPreferences,
  },
  {
    id: 'replaceUserPreferences', method: 'PUT', path: '/api/v5/users/<user_id>/preferences', upstream: 'api', source: PREFERENCES,
    summary: 'Replace the preferences; every required attribute present.', body: ReplaceUserPreferencesRequest, response: UserPreferences,
  },
  {
    id: 'getUserAvatar', method: 'GET', path: '/api/v5/users/<user_id>/avatar', upstream: 'api', source: PREFERENCES,
    summary: 'Read a user\'s avatar.', response: Avatar,
  },
  {
    id: 'getOrgUserAvatar', method: 'GET', path: '/api/v5/orgs/<organization_id>/users/<user_id>/avatar', upstream: 'api',
    source: PREFERENCES, summary: 'Read the avatar of a user of the organization.', response: Avatar,
  },
  {
    id: 'uploadUserAvatar', method: 'POST', path: '/api/v5/users/<user_id>/avatar', upstream: 'api', source: PREFERENCES,
    summary: 'Upload a user\'s avatar (multipart; form field names: not shown).', multipart: true, response: Avatar,
  },
  {
    id: 'uploadOrgUserAvatar', method: 'POST', path: '/api/v5/orgs/<organization_id>/users/<user_id>/avatar', upstream: 'api',
    source: PREFERENCES, summary: 'Upload the avatar of a user of the organization (multipart).', multipart: true, response: Avatar,
  },
] as const satisfies readonly EndpointSpec[];

/** The list with its literal types, for the typed client. */
export const SPEC_01_TYPED = [
  ...SIGN_IN_ENDPOINTS,
  ...CHAT_ENDPOINTS,
  ...USER_ENDPOINTS,
  ...CLIENT_ENDPOINTS,
  ...PREFERENCE_ENDPOINTS,
] as const satisfies readonly EndpointSpec[];

export const SPEC_01_ENDPOINTS: readonly EndpointSpec[] = SPEC_01_TYPED;
