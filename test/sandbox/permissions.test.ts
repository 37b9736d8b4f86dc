/**
 * Spec 01's permission statuses, endpoint by endpoint, driven by the
 * endpoint list the proxy and typed client use (so a chats or users endpoint
 * the sandbox forgot would fail here): 401 without valid credentials, 403 no
 * active subscription, 403 no access to the organization, 404 organization
 * not found, 403 without the reports permission (chat listings) and 403
 * without the users permission or access to the user (user management).
 */
import { describe, expect, it } from 'vitest';
import { SPEC_01_ENDPOINTS } from '../../src/platform/endpoints/spec-01.ts';
import type { EndpointSpec } from '../../src/platform/endpoints/types.ts';
import { startSpec01Sandbox, type Spec01Sandbox } from './spec01-support.ts';

const API_ENDPOINTS = SPEC_01_ENDPOINTS.filter((e) => e.upstream === 'api');
const underOrganization = (e: EndpointSpec) => e.path.includes('<organization_id>');

interface Ids {
  organization_id: string;
  room_id: string;
  chat_id: string;
  user_id: string;
  client_id: string;
}

function fill(endpoint: EndpointSpec, ids: Ids): string {
  return endpoint.path.replace(/<([a-z_]+)>/g, (_, name: keyof Ids) => ids[name]);
}

async function send(sb: Spec01Sandbox, endpoint: EndpointSpec, ids: Ids, authorization: string | null) {
  const body = endpoint.method === 'GET' || endpoint.method === 'DELETE' ? undefined : {};
  return sb.call(endpoint.method, fill(endpoint, ids), body, { authorization });
}

/** A sandbox, a chat, and a token holder whose own id and client fill the paths. */
async function setUp(permissions: Record<string, boolean>) {
  const sb = await startSpec01Sandbox();
  const chat = await sb.seedChat();
  const holder = await sb.addUser({}, { permissions });
  const client = crypto.randomUUID();
  const ids: Ids = { organization_id: sb.organizationId, room_id: sb.roomId, chat_id: chat.id, user_id: holder.id, client_id: client };
  return { sb, holder, ids };
}

describe('permissions of every spec 01 chats and users endpoint', () => {
  it('covers the chats and users endpoints of the list', () => {
    expect(API_ENDPOINTS.map((e) => e.id)).toEqual(expect.arrayContaining(['listChats', 'deleteOrgUser', 'uploadOrgUserAvatar']));
    expect(API_ENDPOINTS.length).toBeGreaterThanOrEqual(30);
  });

  it('401 without credentials and with an unknown token, on every endpoint', async () => {
    const { sb, ids } = await setUp({});
    for (const endpoint of API_ENDPOINTS) {
      expect((await send(sb, endpoint, ids, null)).status, `${endpoint.id} no credentials`).toBe(401);
      expect((await send(sb, endpoint, ids, 'Token unknown')).status, `${endpoint.id} unknown token`).toBe(401);
      expect((await send(sb, endpoint, ids, `Basic ${sb.token}`)).status, `${endpoint.id} wrong scheme`).toBe(401);
    }
  });

  it('403 no active subscription, on every endpoint (even on one’s own account)', async () => {
    const { sb, holder, ids } = await setUp({ subscription: false });
    for (const endpoint of API_ENDPOINTS) {
      const res = await send(sb, endpoint, ids, holder.auth);
      expect(res.status, endpoint.id).toBe(403);
      expect(res.body.detail, endpoint.id).toMatch(/subscription/);
    }
  });

  it('403 no access to the organization, on every endpoint under an organization', async () => {
    const { sb, holder, ids } = await setUp({ organization_access: false });
    for (const endpoint of API_ENDPOINTS.filter(underOrganization)) {
      const res = await send(sb, endpoint, ids, holder.auth);
      expect(res.status, endpoint.id).toBe(403);
      expect(res.body.detail, endpoint.id).toMatch(/organization/);
    }
    // A token of another organization is refused the same way.
    const foreign = await sb.addUser({}, { organizationId: sb.foreignOrganizationId });
    for (const endpoint of API_ENDPOINTS.filter(underOrganization)) {
      expect((await send(sb, endpoint, ids, foreign.auth)).status, endpoint.id).toBe(403);
    }
  });

  it('404 organization not found, on every endpoint under an organization', async () => {
    const { sb, ids } = await setUp({});
    for (const endpoint of API_ENDPOINTS.filter(underOrganization)) {
      const res = await send(sb, endpoint, { ...ids, organization_id: crypto.randomUUID() }, `Token ${sb.token}`);
      expect(res.status, endpoint.id).toBe(404);
    }
  });

  it('403 no reports permission on the room listings; owned chats only under private history', async () => {
    const { sb, holder, ids } = await setUp({ reports: false });
    const chatReads = API_ENDPOINTS.filter((e) => e.source === '01 Chats' && e.id !== 'createEmptyChat');
    const statuses = async () =>
      Object.fromEntries(await Promise.all(chatReads.map(async (e) => [e.id, (await send(sb, e, ids, holder.auth)).status] as const)));
    expect(await statuses()).toMatchObject({ listChats: 403, listDecryptedChats: 403, listOwnedChats: 200, getOwnedChat: 200 });
    await sb.call('PATCH', `/_sandbox/organizations/${sb.organizationId}`, { private_history: true });
    expect(new Set(Object.values(await statuses()))).toEqual(new Set([403]));
  });

  it('403 without the users permission when managing another user; the own account needs none', async () => {
    const { sb, holder, ids } = await setUp({ users: false });
    const other = { ...ids, user_id: sb.agentId };
    const management = API_ENDPOINTS.filter((e) => e.path.includes('<user_id>') && e.id !== 'getOrgUser');
    for (const endpoint of management) {
      const res = await send(sb, endpoint, other, holder.auth);
      expect(res.status, endpoint.id).toBe(403);
      expect(res.body.detail, endpoint.id).toMatch(/users permission|access to this user/);
    }
    expect((await send(sb, API_ENDPOINTS.find((e) => e.id === 'createOrgUser')!, ids, holder.auth)).status).toBe(403);
    for (const id of ['getUser', 'getUserPreferences', 'getOrgUserPreferences', 'listUserClients', 'getOrgUser', 'getMe']) {
      const endpoint = API_ENDPOINTS.find((e) => e.id === id)!;
      expect((await send(sb, endpoint, ids, holder.auth)).status, id).toBe(200);
    }
  });

  it('the control API sets permissions: 404 for an unknown token, 400 for a bad value', async () => {
    const sb = await startSpec01Sandbox();
    expect((await sb.call('PUT', '/_sandbox/tokens/nope/permissions', { users: false })).status).toBe(404);
    const bad = await sb.call('PUT', `/_sandbox/tokens/${sb.token}/permissions`, { users: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.users).toBeDefined();
    await sb.setPermissions(sb.token, { subscription: false });
    expect((await sb.call('GET', '/api/v5/users/me')).status).toBe(403);
    await sb.setPermissions(sb.token, { subscription: true });
    expect((await sb.call('GET', '/api/v5/users/me')).status).toBe(200);
  });
});
