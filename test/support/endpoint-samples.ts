/**
 * Valid sample inputs for every documented endpoint (path parameters, strict
 * queries, bodies) and invalid bodies per spec area: shared by the proxy's
 * contract test and the typed client's.
 */
import { USER_PREFERENCES_DEFAULTS } from '../../src/platform/schemas/users.ts';

export const ORG = '6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10';

/** A sample for every path parameter name the documents use (unknown names fail the test, see below). */
export const PARAMS: Record<string, string> = {
  organization_id: ORG,
  room_id: '7d0c2e4a-8b1f-4c6d-9e2a-3b4c5d6e7f80',
  chat_id: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  user_id: '11111111-2222-4333-8444-555555555555',
  client_id: '66666666-7777-4888-9999-aaaaaaaaaaaa',
  submission_id: '101',
  interaction_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  collection_id: '7',
  workflow_id: 'c0d1e2f3-a4b5-4c6d-8e7f-9a0b1c2d3e4f',
  step_index: '2',
  channel_id: '0b7e6a4c-2d1f-4e3a-8b5c-6d7e8f9a0b1c',
  dm_channel_id: 'c3d4e5f6-a7b8-4c9d-a0e1-f2a3b4c5d6e7',
  message_id: '5f0c3c2e-8a1b-4c3d-9e2f-1a2b3c4d5e6f',
  member_id: '0b1c2d3e-4f5a-4b6c-9d7e-8f9a0b1c2d3e',
  config_id: 'b7c8d9e0-f1a2-4b3c-8d4e-5f6a7b8c9d0e',
};

const T = '2025-01-02T03:04:05Z';
const APP = '66666666-7777-4888-9999-aaaaaaaaaaaa';
const formQuery = { interactionUuid: PARAMS.interaction_id!, from: '2024-05-01T00:00:00Z', to: '2024-05-02T00:00:00+02:00' };
const TAG = '2024-04-02T08:00:00.123456Z';

/** Valid queries for the endpoints with a strict query schema (copied from the spec-01/02/03 schema tests). */
export const QUERIES: Record<string, Record<string, string>> = {
  authorize: { scope: 'openid profile', response_type: 'id_token token', client_id: APP, redirect_uri: 'https://app.example/cb', nonce: 'n1', state: 's' },
  getAuthCallback: { target: 'opener', origin: 'https://app.example:8443', client_id: APP },
  listChats: { is_waiting: 'false', has_messages: 'true', created_at_after: T, cursor: 'c' },
  listOwnedChats: { is_waiting: 'false', cursor: 'c' },
  listDecryptedChats: { limit: '50' },
  listOrgUsers: { ordering: '-email', is_deleted: 'true' },
  listFormSubmissions: { ...formQuery, jsonEq: '{"size":"M"}', orderDesc: 'true' },
  countFormSubmissions: formQuery,
  listInteractions: { collection_id: '7', ordering: '-updated_at' },
  publishInteraction: { tag: TAG },
  unpublishInteraction: { tag: TAG },
  listChannelConfigurations: { ordering: 'modified_at', cursor: 'abc' },
};
/** Endpoints without a query schema pass any query on unchecked: this one, with an encoded space and comma. */
export const ANY_QUERY = { probe: 'a b', list: 'x,y', n: '1' };

const legacyInteraction = {
  uid: 42, name: 'Spring form', notes: '', organizationUid: ORG, workspaceUid: 7, creatorUserId: PARAMS.user_id,
  creatorUserOrganizationUid: ORG, createdDate: '2024-04-01T08:00:00Z', updatedDate: TAG, updatedUserId: PARAMS.user_id,
  updatedUserOrganizationUid: ORG, themeId: 3, templateName: null, publishedAssetUid: null, publishedDate: null,
  isPublished: false, interactionUuid: PARAMS.interaction_id, tag: TAG, project: { views: [{ name: 'Start' }] }, jsonVersion: 2,
  editorCanvasSizeType: 'desktop1', previewCanvasSizeType: 'mobile2', previewUrl: 'https://preview.example.com/42',
  previewCanvasRotated: true,
};
export const stepPayload = {
  filters: [{ property: 'action', values: ['view'] }],
  interval: { start: '2024-05-01T00:00:00Z', end: '2024-05-02T00:00:00Z' },
  step_data: [{}, { actions: ['view-1', 'view-2'] }],
  limit: 100,
};
const outerGoal = { filters: [{ property: 'label', values: ['d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f7a'] }], interval: stepPayload.interval };
const notShown = { name: 'general', anything: { nested: [1, 2] } };
const configurationCreate = {
  name: 'Support mailbox', messaging_channel: 'email', room_id: PARAMS.room_id, reply_webhook_url: 'https://gateway.example.com/webhooks/platform',
};
const userReplace = { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee', is_online_enabled: true, alias: null, title: 'Support' };

/** One valid sample body per endpoint with a `body` schema (samples from the spec-01/02/03 schema tests). */
export const BODIES: Record<string, unknown> = {
  // Spec 01
  endOwnedChat: { is_ended: true },
  replaceOwnedChat: { is_ended: true },
  createEmptyChat: { messaging_channel: 'email' },
  updateUser: { alias: null, birthday: '1990-05-01' },
  replaceUser: userReplace,
  createOrgUser: { email: 'bob@example.com', first_name: 'Bob', last_name: 'Ray' },
  updateOrgUser: { title: 'Lead', gender: null },
  replaceOrgUser: userReplace,
  createUserClient: { presence_expires_in: 60 },
  updateUserClient: { presence_expires_in: 60 },
  replaceUserClient: { presence_expires_in: 120, gcm_token: null },
  updateUserPreferences: { desktop_volume: 0 },
  replaceUserPreferences: USER_PREFERENCES_DEFAULTS,
  // Spec 02
  exportFormSubmissionsCsv: { ...formQuery, token: 'abc', jsonEq: { size: 'M' }, orderDesc: true },
  updateInteraction: { ...legacyInteraction, name: 'Renamed' },
  copyInteraction: { forceUniqueName: true, collection_id: 8 },
  moveInteraction: { collection_id: 8 },
  createInteraction: { name: 'New', editorCanvasSizeType: 'mobile1', jsonVersion: 2, templateName: 'blank', workspaceUid: 7, project: { views: [] } },
  revertInteraction: {},
  createCollection: { name: 'Campaigns', dataRetentionDays: 30, dataDisposalEnabled: true, sharedWithPartnerOrganizationUid: null },
  updateCollection: { name: 'Campaigns 2' },
  getWorkflowStepRows: { ...stepPayload, target: 'triggered_goal', basic: true },
  downloadWorkflowStepRows: { ...stepPayload, target: 'default', format: 'xlsx' },
  getWorkflowSourceData: { ...outerGoal, target: 'affected_goal_total' },
  downloadWorkflowSourceData: { ...outerGoal, format: 'csv' },
  listEventTypes: { vendor: 'giosg' },
  listEvents: { cursor: 'abc' },
  listMessageEvents: { cursor: 'abc', anything: 1 },
  // Spec 03
  createChannel: notShown,
  replaceChannel: notShown,
  updateChannel: { description: 'Everyone' },
  createDmChannel: { user_ids: [PARAMS.user_id] },
  createChannelMessage: { id: PARAMS.message_id, body: { version: 3, chunks: [{ type: 'text', text: 'Hello, wörld ✓' }] }, notify_channel: true },
  updateChannelMessage: { body: { version: 3, chunks: [{ type: 'text', text: 'Edited' }] } },
  addChannelMember: { member_id: PARAMS.member_id },
  updateChannelMember: { is_admin: true },
  updateMemberNotificationSettings: { mode: 'muted' },
  createChannelStream: {},
  createChannelConfiguration: configurationCreate,
  replaceChannelConfiguration: configurationCreate,
  updateChannelConfiguration: { max_retry_count: 5 },
  createUnifiedMessages: { messages: [{ body: 'Hi', thread_id: 't-1', sender_id: 'visitor@example.com', message_id: 'm-1' }] },
  closeUnifiedSession: { thread_id: 't-1' },
};

/**
 * Endpoints left out, each with its reason. Empty: every body schema has a
 * valid sample above. Keep it short; the test below fails when an endpoint
 * with a body schema has neither a sample nor an entry here.
 */
export const SKIPPED: Record<string, string> = {};

/** Invalid bodies, one or more per spec area: refused locally, naming the field. */
export const INVALID: { id: string; body: unknown; field: string }[] = [
  { id: 'createOrgUser', body: { email: 'not-an-email', first_name: 'Bob', last_name: 'Ray' }, field: 'email' },
  { id: 'updateUserPreferences', body: { desktop_volume: 101 }, field: 'desktop_volume' },
  { id: 'createCollection', body: { name: '' }, field: 'name' },
  { id: 'getWorkflowStepRows', body: { ...stepPayload, limit: 0 }, field: 'limit' },
  { id: 'createChannelMessage', body: { body: { version: 2, chunks: [{ type: 'text', text: 'x' }] } }, field: 'body.version' },
  { id: 'createUnifiedMessages', body: { messages: [] }, field: 'messages' },
];

