/**
 * The unified messaging client against a real scripted HTTP server: paths,
 * request validation before anything is sent, response parsing, error bodies
 * and pagination.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  PlatformHttpError,
  PlatformRequestInvalidError,
  PlatformResponseError,
} from '../../src/platform/errors.ts';
import { PlatformHttpClient } from '../../src/platform/http-client.ts';
import { createUnifiedMessagingClient, type UnifiedMessagingClient } from '../../src/platform/unified-messaging-client.ts';
import { failure } from '../support/failure.ts';
import {
  CHAT_ID,
  CONFIG_ID,
  ORG_ID,
  TOKEN,
  chat,
  configuration,
  createConfigurationBody,
  createMessagesBody,
  createMessagesResponse,
} from './fixtures.ts';
import { startScriptedPlatform, type Script, type ScriptedPlatform } from './scripted-platform.ts';

const FAST_RETRY = { attempts: 3, baseMs: 1, maxMs: 20 };
const COLLECTION = `/api/v5/orgs/${ORG_ID}/unified_messaging`;

let platform: ScriptedPlatform | undefined;
let http: PlatformHttpClient | undefined;

afterEach(async () => {
  await http?.close();
  await platform?.close();
  http = undefined;
  platform = undefined;
});

async function setup(script: Script[], organizationId = ORG_ID): Promise<{ platform: ScriptedPlatform; um: UnifiedMessagingClient }> {
  platform = await startScriptedPlatform(script);
  http = new PlatformHttpClient({ baseUrl: platform.origin, token: TOKEN, retry: FAST_RETRY });
  return { platform, um: createUnifiedMessagingClient({ http, organizationId }) };
}

describe('configurations', () => {
  it('createConfiguration POSTs the body to the collection and parses the 201', async () => {
    const created = configuration(1, { webhook_secret_key: 'a'.repeat(64), added_later: 'kept' });
    const { platform, um } = await setup([{ status: 201, body: created }]);
    const result = await um.createConfiguration(createConfigurationBody);
    expect(result).toEqual(created);
    expect(platform.requests[0]).toMatchObject({ method: 'POST', url: COLLECTION });
    expect(JSON.parse(platform.requests[0]!.body)).toEqual(createConfigurationBody);
  });

  it('get, replace (PUT), patch and delete address /unified_messaging/<id>', async () => {
    const { platform, um } = await setup([
      { status: 200, body: configuration(1) },
      { status: 200, body: configuration(1) },
      { status: 200, body: configuration(1, { name: 'Renamed' }) },
      { status: 204 },
    ]);
    await um.getConfiguration(CONFIG_ID);
    await um.replaceConfiguration(CONFIG_ID, createConfigurationBody);
    const patched = await um.patchConfiguration(CONFIG_ID, { name: 'Renamed' });
    await expect(um.deleteConfiguration(CONFIG_ID)).resolves.toBeUndefined();
    expect(patched.name).toBe('Renamed');
    expect(platform.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET ${COLLECTION}/${CONFIG_ID}`,
      `PUT ${COLLECTION}/${CONFIG_ID}`,
      `PATCH ${COLLECTION}/${CONFIG_ID}`,
      `DELETE ${COLLECTION}/${CONFIG_ID}`,
    ]);
    expect(JSON.parse(platform.requests[2]!.body)).toEqual({ name: 'Renamed' });
  });

  it('URL-encodes every path segment', async () => {
    const { platform, um } = await setup([{ status: 201, body: createMessagesResponse }], 'org 1/x');
    await um.createMessages('a/b c?d#e', createMessagesBody);
    expect(platform.requests[0]?.url).toBe('/api/v5/orgs/org%201%2Fx/unified_messaging/a%2Fb%20c%3Fd%23e/messages');
  });

  it.each(['', '.', '..'])('refuses the id %j, which would name another resource, and sends nothing', async (id) => {
    const { platform, um } = await setup([{ status: 200, body: configuration(1) }]);
    // Guards against a synchronous throw that a caller's `.catch()` would miss: the call must reject.
    const pending = um.getConfiguration(id);
    const err = await failure(pending);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REQUEST_INVALID', issues: [{ path: 'params.config_id' }] });
    expect(platform.requests).toHaveLength(0);
  });
});

describe('messages and sessions', () => {
  it('createMessages sends the messages with the documented defaults and parses the 201', async () => {
    const { platform, um } = await setup([{ status: 201, body: createMessagesResponse }]);
    const result = await um.createMessages(CONFIG_ID, createMessagesBody);
    expect(result).toEqual(createMessagesResponse);
    expect(platform.requests[0]).toMatchObject({ method: 'POST', url: `${COLLECTION}/${CONFIG_ID}/messages` });
    expect(JSON.parse(platform.requests[0]!.body)).toEqual({
      messages: [{ ...createMessagesBody.messages[0], sender_type: 'visitor', selected_reply_suggestion_id: null }],
      skip_waiting_state: false,
      close_session: false,
    });
  });

  it('an invalid body is refused with its field paths and nothing is sent', async () => {
    const { platform, um } = await setup([{ status: 201, body: createMessagesResponse }]);
    const err = await failure(
      um.createMessages(CONFIG_ID, {
        messages: [
          { body: '  ', thread_id: 't', sender_id: 's', message_id: 'm1' },
          { body: 'x', thread_id: 'other', sender_id: 's', message_id: 'm2' },
        ],
      }),
    );
    expect(err).toBeInstanceOf(PlatformRequestInvalidError);
    const paths = (err as PlatformRequestInvalidError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['body.messages.0.body', 'body.messages.1.thread_id']));
    expect((err as Error).message).toContain(`POST ${COLLECTION}/${CONFIG_ID}/messages`);
    expect((err as Error).message).toContain('messages.0.body');
    expect(platform.requests).toHaveLength(0);
  });

  it('an unknown key is refused, so a typo never leaves the gateway', async () => {
    const { platform, um } = await setup([{ status: 201, body: configuration(1) }]);
    const err = await failure(um.createConfiguration({ ...createConfigurationBody, room: 'typo' } as never));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REQUEST_INVALID' });
    expect(platform.requests).toHaveLength(0);
  });

  it('closeSession POSTs the thread_id to close_session', async () => {
    const closed = { chat_session_id: CHAT_ID, thread_id: 'thread-1', message: 'Session closed.', is_ended: true };
    const { platform, um } = await setup([{ status: 200, body: closed }]);
    await expect(um.closeSession(CONFIG_ID, 'thread-1')).resolves.toEqual(closed);
    expect(platform.requests[0]).toMatchObject({ method: 'POST', url: `${COLLECTION}/${CONFIG_ID}/close_session` });
    expect(JSON.parse(platform.requests[0]!.body)).toEqual({ thread_id: 'thread-1' });
  });

  it('getOwnedChat and endOwnedChat address /owned_chats/<chat_id>; ending PATCHes is_ended true', async () => {
    const { platform, um } = await setup([{ status: 200, body: { ...chat, is_ended: false } }, { status: 200, body: chat }]);
    expect((await um.getOwnedChat(CHAT_ID)).is_ended).toBe(false);
    expect((await um.endOwnedChat(CHAT_ID)).is_ended).toBe(true);
    expect(platform.requests.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      `GET /api/v5/orgs/${ORG_ID}/owned_chats/${CHAT_ID} `,
      `PATCH /api/v5/orgs/${ORG_ID}/owned_chats/${CHAT_ID} {"is_ended":true}`,
    ]);
  });
});

describe('error and malformed answers', () => {
  it('400 with the {detail, errors} shape: detail and field errors, not retried', async () => {
    const { platform, um } = await setup([
      { status: 400, body: { detail: 'Invalid payload.', errors: { 'messages.0.body': ['This field may not be blank.'] } } },
    ]);
    const err = await failure(um.createMessages(CONFIG_ID, createMessagesBody));
    expect(err).toBeInstanceOf(PlatformHttpError);
    expect(err).toMatchObject({
      code: 'TG_PLATFORM_REJECTED',
      status: 400,
      detail: 'Invalid payload.',
      fieldErrors: { 'messages.0.body': ['This field may not be blank.'] },
    });
    expect((err as Error).message).toContain('messages.0.body: This field may not be blank.');
    expect(platform.requests).toHaveLength(1);
  });

  it('400 with a serializer-style {field: [msg]} body: detail summarises the field errors', async () => {
    const { platform, um } = await setup([
      {
        status: 400,
        body: { room_id: ['Room not found.'], messages: [{ sender_id: ['Invalid user.'] }] },
      },
    ]);
    const err = await failure(um.createConfiguration(createConfigurationBody));
    expect(err).toMatchObject({
      code: 'TG_PLATFORM_REJECTED',
      status: 400,
      detail: 'room_id: Room not found.; messages.0.sender_id: Invalid user.',
    });
    expect(platform.requests).toHaveLength(1);
  });

  it('404 from close_session carries the reason from detail', async () => {
    const { um } = await setup([{ status: 404, body: { detail: 'No session for thread thread-1.' } }]);
    const err = await failure(um.closeSession(CONFIG_ID, 'thread-1'));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REJECTED', status: 404, detail: 'No session for thread thread-1.' });
  });

  it('a 2xx body that fails the response schema is PlatformResponseError, not retried', async () => {
    const { platform, um } = await setup([{ status: 201, body: { ...createMessagesResponse, chat_id: 'not-a-uuid' } }]);
    const err = await failure(um.createMessages(CONFIG_ID, createMessagesBody));
    expect(err).toBeInstanceOf(PlatformResponseError);
    expect(err).toMatchObject({ code: 'TG_PLATFORM_BAD_RESPONSE', status: 201, issues: [{ path: 'chat_id' }] });
    expect((err as Error).message).toContain(`POST ${COLLECTION}/${CONFIG_ID}/messages → 201`);
    expect(platform.requests).toHaveLength(1);
  });

  it('a 2xx body that is not JSON is PlatformResponseError', async () => {
    const { um } = await setup([{ status: 200, body: '<html>maintenance</html>' }]);
    const err = await failure(um.getConfiguration(CONFIG_ID));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_BAD_RESPONSE', status: 200 });
  });
});

describe('listing', () => {
  /** Three pages of 2, 2 and 1 configurations linked by absolute `next` URLs. */
  const pages: Script = (req, _i, origin) => {
    const cursor = new URL(req.url, origin).searchParams.get('cursor');
    const page = cursor === null ? 0 : Number(cursor);
    const items = [[0, 1], [2, 3], [4]][page]!.map((n) => configuration(n));
    const link = (p: number) => `${origin}${COLLECTION}?cursor=${p}&ordering=messaging_channel`;
    return {
      status: 200,
      body: { next: page < 2 ? link(page + 1) : null, previous: page > 0 ? link(page - 1) : null, results: items },
    };
  };

  it('listConfigurations follows next across three pages', async () => {
    const { platform, um } = await setup([pages]);
    const names: string[] = [];
    for await (const c of um.listConfigurations({ ordering: 'messaging_channel', pageSize: 2 })) names.push(c.name);
    expect(names).toEqual([0, 1, 2, 3, 4].map((n) => `Support inbox ${n}`));
    expect(platform.requests.map((r) => r.url)).toEqual([
      `${COLLECTION}?ordering=messaging_channel&page_size=2`,
      `${COLLECTION}?cursor=1&ordering=messaging_channel`,
      `${COLLECTION}?cursor=2&ordering=messaging_channel`,
    ]);
    expect(platform.requests.every((r) => r.headers.authorization === `Token ${TOKEN}`)).toBe(true);
  });

  it('listConfigurationsPage returns one page and sends the default ordering', async () => {
    const { platform, um } = await setup([pages]);
    const page = await um.listConfigurationsPage({ cursor: '1' });
    expect(page.results.map((c) => c.name)).toEqual(['Support inbox 2', 'Support inbox 3']);
    expect(page.next).toContain('cursor=2');
    expect(platform.requests[0]?.url).toBe(`${COLLECTION}?ordering=-created_at&cursor=1`);
  });

  // Guards against sending the token to whatever host a `next` link names.
  it('a next link naming another host is followed on the configured origin only', async () => {
    const { platform, um } = await setup([
      { status: 200, body: { next: `http://evil.example${COLLECTION}?cursor=x`, previous: null, results: [configuration(0)] } },
      { status: 200, body: { next: null, previous: null, results: [configuration(1)] } },
    ]);
    const ids: string[] = [];
    for await (const c of um.listConfigurations()) ids.push(c.id);
    expect(ids).toHaveLength(2);
    expect(platform.requests[1]?.url).toBe(`${COLLECTION}?cursor=x`);
  });

  it('a next link that repeats a page already read stops with PlatformResponseError', async () => {
    const { um } = await setup([
      (_req, _i, origin) => ({
        status: 200,
        body: { next: `${origin}${COLLECTION}?cursor=same`, previous: null, results: [configuration(0)] },
      }),
    ]);
    const seen: unknown[] = [];
    const err = await failure(
      (async () => {
        for await (const c of um.listConfigurations()) seen.push(c);
      })(),
    );
    expect(err).toMatchObject({ code: 'TG_PLATFORM_BAD_RESPONSE', issues: [{ path: 'next' }] });
    expect(seen).toHaveLength(2);
  });

  it('an invalid ordering is refused before anything is sent', async () => {
    const { platform, um } = await setup([pages]);
    const err = await failure(um.listConfigurationsPage({ ordering: 'name' as never }));
    expect(err).toMatchObject({ code: 'TG_PLATFORM_REQUEST_INVALID', issues: [{ path: 'query.ordering' }] });
    expect(platform.requests).toHaveLength(0);
  });
});
