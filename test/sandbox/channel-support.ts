/**
 * Helpers of the channel messaging suites: a sandbox on a real port, its
 * channel messaging base paths, and extra users with their own tokens so a
 * test can act as several members.
 */
import { startTestSandbox, type JsonResponse, type TestSandbox } from './support.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ChannelUser {
  id: string;
  name: string;
  token: string;
  /** Calls the sandbox with this user's token. */
  call(method: string, path: string, body?: unknown): Promise<JsonResponse>;
}

export interface ChannelSandbox extends TestSandbox {
  /** /api/pub/v1/orgs/<organization_id> */
  cm: string;
  /** /api/pub/public/v1/orgs/<organization_id> */
  pub: string;
  /** The seeded agent: the owner of the sandbox's token. */
  agentId: string;
  addUser(name: string): Promise<ChannelUser>;
  /** Creates a channel as the sandbox's agent; fields override the defaults. */
  createChannel(fields?: Record<string, unknown>, as?: ChannelUser): Promise<ChannelJson>;
  /** Posts a one-chunk text message. */
  post(channelId: string, text: string, as?: ChannelUser, extra?: Record<string, unknown>): Promise<JsonResponse>;
  advanceSeconds(seconds: number): Promise<void>;
}

export interface ChannelJson {
  id: string;
  name: string | null;
  is_direct_message: boolean;
  is_public: boolean;
  member_ids: string[];
  latest_message: { id: string } | null;
  latest_message_created_at: string | null;
}

export const textBody = (text: string) => ({ version: 3 as const, chunks: [{ type: 'text' as const, text }] });

export async function startChannelSandbox(): Promise<ChannelSandbox> {
  const sb = await startTestSandbox();
  const cm = `/api/pub/v1/orgs/${sb.organizationId}`;
  const info = await sb.info();

  const addUser: ChannelSandbox['addUser'] = async (name) => {
    const res = await sb.call('POST', '/_sandbox/channel_messaging/users', { name }, { authorization: null });
    if (res.status !== 201) throw new Error(`adding a user answered ${res.status}: ${res.text}`);
    const { id, token } = res.body as { id: string; token: string };
    return { id, name, token, call: (method, path, body) => sb.call(method, path, body, { authorization: `Token ${token}` }) };
  };

  const createChannel: ChannelSandbox['createChannel'] = async (fields = {}, as) => {
    const body = { name: 'general', ...fields };
    const res = as ? await as.call('POST', `${cm}/channels`, body) : await sb.call('POST', `${cm}/channels`, body);
    if (res.status !== 201) throw new Error(`creating a channel answered ${res.status}: ${res.text}`);
    return res.body as ChannelJson;
  };

  const post: ChannelSandbox['post'] = (channelId, text, as, extra = {}) => {
    const path = `${cm}/channels/${channelId}/messages`;
    const body = { body: textBody(text), ...extra };
    return as ? as.call('POST', path, body) : sb.call('POST', path, body);
  };

  return {
    ...sb,
    cm,
    pub: `/api/pub/public/v1/orgs/${sb.organizationId}`,
    agentId: info.agent.id,
    addUser,
    createChannel,
    post,
    advanceSeconds: async (seconds) => {
      const res = await sb.call('POST', '/_sandbox/clock', { advance_seconds: seconds });
      if (res.status !== 200) throw new Error(`advancing the clock answered ${res.status}`);
    },
  };
}
