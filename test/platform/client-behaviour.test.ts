/**
 * The typed client's behaviour beyond one request: pagination across pages,
 * the platform's errors as classes with status and detail, downloads read as
 * a stream, the argument and result types per endpoint, and the client
 * pointed at the sandbox with no special case.
 */
import * as published from 'threadgate/platform';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createPlatformClient, PlatformHttpError, PlatformResponseError, type PlatformClient, type PlatformDownload } from '../../src/platform/client.ts';
import type { Chat } from '../../src/platform/schemas/chats.ts';
import type { ChannelConfiguration } from '../../src/platform/schemas/unified-messaging.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { ORG_ID, TOKEN, chat } from './fixtures.ts';
import { startScriptedPlatform, type ScriptedPlatform, type Script } from './scripted-platform.ts';

let platform: ScriptedPlatform | undefined;
let client: PlatformClient | undefined;

afterEach(async () => {
  await client?.close();
  await platform?.close();
  client = platform = undefined;
});

async function scripted(script: Script[]): Promise<{ platform: ScriptedPlatform; client: PlatformClient }> {
  platform = await startScriptedPlatform(script);
  client = createPlatformClient({ url: platform.origin, token: TOKEN, organizationId: ORG_ID, retry: { attempts: 1 } });
  return { platform, client };
}

const OWNED = `/api/v5/orgs/${ORG_ID}/owned_chats`;
/** A chat id (a UUID, as the schema wants) made from one letter. */
const uuid = (letter: string) => `${letter.repeat(8)}-${letter.repeat(4)}-4${letter.repeat(3)}-8${letter.repeat(3)}-${letter.repeat(12)}`;

describe('pagination', () => {
  /** Three pages of 2, 2 and 1 chats linked by absolute `next` URLs carrying an opaque cursor. */
  const pages: Script = (req, _i, origin) => {
    const cursor = new URL(req.url, origin).searchParams.get('cursor');
    const ids = (cursor === null ? ['a', 'b'] : cursor === 'p2' ? ['c', 'd'] : ['e']).map(uuid);
    const next = cursor === null ? `${origin}${OWNED}?cursor=p2` : cursor === 'p2' ? `${origin}${OWNED}?cursor=p3` : null;
    return { status: 200, body: { next, previous: null, results: ids.map((id) => ({ ...chat, id })) } };
  };

  it('paginate() yields every item of every page, following next with the query the link carries', async () => {
    const { platform, client } = await scripted([pages]);
    const ids: string[] = [];
    for await (const item of client.paginate('listOwnedChats', { query: { is_waiting: 'false' } })) ids.push(item.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e'].map(uuid));
    expect(platform.requests.map((r) => r.url)).toEqual([`${OWNED}?is_waiting=false`, `${OWNED}?cursor=p2`, `${OWNED}?cursor=p3`]);
  });

  it('stops early without reading further pages when the caller breaks', async () => {
    const { platform, client } = await scripted([pages]);
    for await (const item of client.paginate('listOwnedChats')) if (item.id === uuid('b')) break;
    expect(platform.requests).toHaveLength(1);
  });

  it('a relative next link is read against the page it came from', async () => {
    const { platform, client } = await scripted([
      (req) => {
        const second = req.url.includes('cursor=');
        return { status: 200, body: { next: second ? null : '?cursor=p2', previous: null, results: [{ ...chat, id: uuid(second ? 'b' : 'a') }] } };
      },
    ]);
    const ids: string[] = [];
    for await (const item of client.paginate('listOwnedChats')) ids.push(item.id);
    expect(ids).toEqual([uuid('a'), uuid('b')]);
    expect(platform.requests.map((r) => r.url)).toEqual([OWNED, `${OWNED}?cursor=p2`]);
  });

  it('a next link pointing back to a page already read fails instead of looping', async () => {
    const { client } = await scripted([
      (_req, _i, origin) => ({ status: 200, body: { next: `${origin}${OWNED}`, previous: null, results: [{ ...chat, id: uuid('a') }] } }),
    ]);
    const error = await (async () => {
      for await (const _ of client.paginate('listOwnedChats'));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformResponseError);
    expect((error as PlatformResponseError).issues).toEqual([{ path: 'next', message: 'links to a page already read' }]);
  });
});

describe('errors and downloads', () => {
  it('a 404 is a PlatformHttpError with the status and the platform detail; a 2xx that does not fit the schema a PlatformResponseError', async () => {
    const { client } = await scripted([{ status: 404, body: { detail: 'Not found.' } }, { status: 200, body: { id: 42 } }]);
    const missing = await client.getOwnedChat({ params: { chat_id: 'nope' } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PlatformHttpError);
    expect(missing).toMatchObject({ status: 404, detail: 'Not found.', code: 'TG_PLATFORM_REJECTED' });
    const odd = await client.getOwnedChat({ params: { chat_id: 'x' } }).catch((e: unknown) => e);
    expect(odd).toBeInstanceOf(PlatformResponseError);
  });

  it('a 10 MB download arrives as a stream, chunk by chunk, with its filename', async () => {
    const csv = `id,value\r\n${'1,abcdefghij\r\n'.repeat(800_000)}`;
    const { client } = await scripted([
      { status: 200, headers: { 'content-type': 'text/csv', 'content-disposition': "attachment; filename*=UTF-8''r%C3%A9sultats.csv" }, body: csv },
    ]);
    const download = await client.exportFormSubmissionsCsv({
      body: { interactionUuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', token: 't', from: '2024-05-01T00:00:00Z', to: '2024-05-02T00:00:00Z' },
    });
    expect([download.contentType, download.filename]).toEqual(['text/csv', 'résultats.csv']);
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of download.stream()) {
      bytes += (chunk as Buffer).length;
      chunks += 1;
    }
    expect(bytes).toBe(Buffer.byteLength(csv));
    expect(chunks).toBeGreaterThan(10);
    await expect(download.text()).rejects.toMatchObject({ code: 'TG_PLATFORM_DOWNLOAD_CONSUMED' });
  });
});

describe('a download not read', () => {
  it('is discarded at the end of an await using scope, and the connection serves the next call', async () => {
    const { platform, client } = await scripted([{ status: 200, headers: { 'content-type': 'text/csv' }, body: 'a,b\r\n'.repeat(50_000) }]);
    const body = { interactionUuid: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d', token: 't', from: '2024-05-01T00:00:00Z', to: '2024-05-02T00:00:00Z' };
    let kept: PlatformDownload | undefined;
    {
      await using download = await client.exportFormSubmissionsCsv({ body });
      expect(download.contentType).toBe('text/csv');
      kept = download;
    }
    await expect(kept.text()).rejects.toMatchObject({ code: 'TG_PLATFORM_DOWNLOAD_CONSUMED' });
    const again = await client.exportFormSubmissionsCsv({ body });
    expect((await again.text()).length).toBe(250_000);
    expect(platform.requests).toHaveLength(2);
  });
});

describe('types', () => {
  it('is what the package exports as threadgate/platform', () => {
    expect(published.createPlatformClient).toBe(createPlatformClient);
    expect(published.PlatformHttpError).toBe(PlatformHttpError);
  });

  it('each function takes its endpoint parameters, query and body, and returns its response type', () => {
    const c = {} as PlatformClient;
    expectTypeOf(c.getOwnedChat).parameter(0).toExtend<{ params: { chat_id: string | number } }>();
    expectTypeOf(c.getOwnedChat).returns.resolves.toExtend<Chat>();
    expectTypeOf(c.getChannelConfiguration).returns.resolves.toExtend<ChannelConfiguration>();
    // Wrong shapes do not compile: a body field of the wrong type, a missing path parameter, an unknown endpoint.
    // @ts-expect-error max_retry_count is a number
    void (() => c.updateChannelConfiguration({ params: { config_id: 'x' }, body: { max_retry_count: 'five' } }));
    // @ts-expect-error chat_id is required
    void (() => c.getOwnedChat({ params: {} }));
    // @ts-expect-error no such endpoint
    void (() => c.getEverything());
    expect(true).toBe(true);
  });
});

describe('against the sandbox', () => {
  it('registers a configuration, posts a message, reads, lists and ends the chat it opened', async () => {
    const sandbox = await startTestSandbox({ logger: false });
    client = createPlatformClient({ url: sandbox.url, builderUrl: sandbox.url, authUrl: sandbox.url, token: sandbox.token, organizationId: sandbox.organizationId });
    const config = await client.createChannelConfiguration({
      body: { name: 'typed client', messaging_channel: 'email', room_id: sandbox.roomId, reply_webhook_url: 'http://127.0.0.1:9/hook' },
    });
    const posted = await client.createUnifiedMessages({
      params: { config_id: config.id },
      body: { messages: [{ body: 'Hello', thread_id: 'thread-1', sender_id: 'ann@example.com', message_id: 'm-1' }] },
    });
    const chatId = posted.chat_id;
    const read = await client.getOwnedChat({ params: { chat_id: chatId } });
    expect(read).toMatchObject({ id: chatId, is_ended: false });
    const listed: string[] = [];
    for await (const item of client.paginate('listOwnedChats')) listed.push(item.id);
    expect(listed).toContain(chatId);
    const ended = await client.endOwnedChat({ params: { chat_id: chatId }, body: { is_ended: true } });
    expect(ended).toMatchObject({ id: chatId, is_ended: true });
    const configs: string[] = [];
    for await (const item of client.paginate('listChannelConfigurations')) configs.push(item.id);
    expect(configs).toEqual([config.id]);
  });

  it('manages a configuration through all of its unified messaging endpoints', async () => {
    const sandbox = await startTestSandbox({ logger: false });
    client = createPlatformClient({ url: sandbox.url, token: sandbox.token, organizationId: sandbox.organizationId });
    const body = { name: 'desk', messaging_channel: 'email', room_id: sandbox.roomId, reply_webhook_url: 'http://127.0.0.1:9/hook' };
    const config = await client.createChannelConfiguration({ body });
    const params = { config_id: config.id };
    expect(await client.getChannelConfiguration({ params })).toMatchObject({ id: config.id, name: 'desk' });
    expect(await client.updateChannelConfiguration({ params, body: { max_retry_count: 5 } })).toMatchObject({ max_retry_count: 5 });
    expect(await client.replaceChannelConfiguration({ params, body: { ...body, name: 'desk 2' } })).toMatchObject({ name: 'desk 2' });
    const posted = await client.createUnifiedMessages({
      params,
      body: { messages: [{ body: 'Hi', thread_id: 't-9', sender_id: 'bo@example.com', message_id: 'm-9' }] },
    });
    const closed = await client.closeUnifiedSession({ params, body: { thread_id: 't-9' } });
    expect(closed).toMatchObject({ chat_session_id: posted.chat_id, thread_id: 't-9', is_ended: true });
    await client.deleteChannelConfiguration({ params });
    const gone = await client.getChannelConfiguration({ params }).catch((e: unknown) => e);
    expect(gone).toMatchObject({ status: 404 });
  });
});
