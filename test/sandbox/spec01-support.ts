/**
 * Helpers of the spec 01 chats and users suites: organizations, users with
 * tokens and permissions, and chats seeded through the control API.
 */
import { startTestSandbox, type CallOptions, type JsonResponse, type TestSandbox } from './support.ts';

export interface Permissions {
  subscription?: boolean;
  organization_access?: boolean;
  reports?: boolean;
  users?: boolean;
}

export interface SeededUser {
  id: string;
  token: string;
  /** Authorization header value. */
  auth: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the User resource as answered
  view: any;
}

export interface SeededMessage {
  sender: 'visitor' | 'user';
  text: string;
  user_id?: string;
  created_at?: string;
}

export interface Spec01Sandbox extends TestSandbox {
  /** The sandbox organization's first agent (the seeded token's user). */
  agentId: string;
  foreignOrganizationId: string;
  foreignRoomId: string;
  org: (path?: string) => string;
  /** A user of an organization (default: the sandbox's) with its own token. */
  addUser(fields?: Record<string, unknown>, options?: { organizationId?: string; permissions?: Permissions }): Promise<SeededUser>;
  /** A token of the seeded agent with the given permissions. */
  setPermissions(token: string, permissions: Permissions): Promise<void>;
  seedChat(fields?: Record<string, unknown>): Promise<{ id: string; [key: string]: unknown }>;
  newOrganization(fields?: Record<string, unknown>): Promise<{ id: string; room_id: string }>;
  /** Calls with another user's Authorization header. */
  as(user: SeededUser | string, method: string, path: string, body?: unknown, options?: CallOptions): Promise<JsonResponse>;
}

let emailSeq = 0;
export const uniqueEmail = (prefix = 'user') => `${prefix}.${Date.now().toString(36)}.${++emailSeq}@example.test`;

export async function startSpec01Sandbox(): Promise<Spec01Sandbox> {
  const sb = await startTestSandbox();
  const info = await sb.info();
  const expectStatus = (res: JsonResponse, status: number, what: string) => {
    if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const addUser: Spec01Sandbox['addUser'] = async (fields = {}, options = {}) => {
    const organizationId = options.organizationId ?? sb.organizationId;
    const res = await sb.call('POST', `/_sandbox/organizations/${organizationId}/users`, {
      user: { email: uniqueEmail(), first_name: 'Uma', last_name: 'User', ...fields },
      permissions: options.permissions ?? {},
    });
    const body = expectStatus(res, 201, 'seeding a user');
    return { id: body.user.id, token: body.token, auth: `Token ${body.token}`, view: body.user };
  };
  return {
    ...sb,
    agentId: info.agent.id,
    foreignOrganizationId: info.foreign_organization_id,
    foreignRoomId: info.foreign_room_id,
    org: (path = '') => `/api/v5/orgs/${sb.organizationId}${path}`,
    addUser,
    setPermissions: async (token, permissions) => {
      expectStatus(await sb.call('PUT', `/_sandbox/tokens/${token}/permissions`, permissions), 200, 'setting permissions');
    },
    seedChat: async (fields = {}) => expectStatus(await sb.call('POST', '/_sandbox/chats', fields), 201, 'seeding a chat').chat,
    newOrganization: async (fields = {}) => expectStatus(await sb.call('POST', '/_sandbox/organizations', fields), 201, 'an organization'),
    as: (user, method, path, body, options = {}) =>
      sb.call(method, path, body, { ...options, authorization: typeof user === 'string' ? user : user.auth }),
  };
}

/** ISO time `seconds` after `base`. */
export const at = (base: string | number, seconds: number) =>
  new Date((typeof base === 'number' ? base : Date.parse(base)) + seconds * 1000).toISOString();
