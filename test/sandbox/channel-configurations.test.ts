/**
 * Channel configurations (spec 03): register, list with ordering and cursors,
 * read, replace, update, delete, and every 400/404 of the error table for them.
 */
import { describe, expect, it } from 'vitest';
import { Paginated } from '../../src/platform/schemas/pagination.ts';
import { ChannelConfiguration } from '../../src/platform/schemas/unified-messaging.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

const HEX64 = /^[0-9a-f]{64}$/;

function validBody(sb: TestSandbox, fields: Record<string, unknown> = {}) {
  return { name: 'Inbox', messaging_channel: 'email', room_id: sb.roomId, reply_webhook_url: 'https://x.test/hook', ...fields };
}

describe('register (POST collection)', () => {
  it('answers 201 with the configuration, a generated 64-hex secret and max_retry_count 3', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb));
    expect(res.status).toBe(201);
    const config = ChannelConfiguration.parse(res.body);
    expect(config).toMatchObject({ name: 'Inbox', organization_id: sb.organizationId, room_id: sb.roomId, max_retry_count: 3 });
    expect(config.webhook_secret_key).toMatch(HEX64);
    expect(config.created_at).toBe(config.modified_at);
  });

  it('generates a secret when webhook_secret_key is null, and keeps a supplied one', async () => {
    const sb = await startTestSandbox();
    const generated = await sb.call('POST', sb.um, validBody(sb, { webhook_secret_key: null }));
    expect(generated.body.webhook_secret_key).toMatch(HEX64);
    const supplied = await sb.call('POST', sb.um, validBody(sb, { webhook_secret_key: 'my-own-secret', max_retry_count: 5 }));
    expect(supplied.body).toMatchObject({ webhook_secret_key: 'my-own-secret', max_retry_count: 5 });
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ['blank name', { name: '   ' }, 'name'],
    ['name of 256 characters', { name: 'n'.repeat(256) }, 'name'],
    ['messaging_channel of 65 characters', { messaging_channel: 'c'.repeat(65) }, 'messaging_channel'],
    ['reply_webhook_url over 2048 characters', { reply_webhook_url: `https://x.test/${'p'.repeat(2040)}` }, 'reply_webhook_url'],
    ['reply_webhook_url that is not a URL', { reply_webhook_url: 'not a url' }, 'reply_webhook_url'],
    ['room_id that is not a UUID', { room_id: 'room-1' }, 'room_id'],
    ['max_retry_count that is not an integer', { max_retry_count: 1.5 }, 'max_retry_count'],
  ];
  for (const [what, fields, path] of invalid) {
    it(`Register | 400 | Invalid payload: ${what} → errors.${path}`, async () => {
      const sb = await startTestSandbox();
      const res = await sb.call('POST', sb.um, validBody(sb, fields));
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe('Invalid payload.');
      expect(Object.keys(res.body.errors)).toEqual([path]);
    });
  }

  it('accepts the limits exactly: name 255, messaging_channel 64, URL 2048 characters', async () => {
    const sb = await startTestSandbox();
    const url = `https://x.test/${'p'.repeat(2048 - 'https://x.test/'.length)}`;
    const res = await sb.call(
      'POST',
      sb.um,
      validBody(sb, { name: 'n'.repeat(255), messaging_channel: 'c'.repeat(64), reply_webhook_url: url }),
    );
    expect(res.status).toBe(201);
  });

  it('Register | 400 | Missing required fields: each is named', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, {});
    expect(res.status).toBe(400);
    for (const field of ['name', 'messaging_channel', 'room_id', 'reply_webhook_url']) {
      expect(res.body.errors[field]).toEqual(['This field is required.']);
    }
  });

  it('Register | 400 | Room not found (errors on room_id)', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb, { room_id: crypto.randomUUID() }));
    expect(res.status).toBe(400);
    expect(res.body.errors.room_id).toEqual(['Room not found.']);
  });

  it('Register | 400 | Room in a different organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const res = await sb.call('POST', sb.um, validBody(sb, { room_id: info.foreign_room_id }));
    expect(res.status).toBe(400);
    expect(res.body.errors.room_id).toEqual(['Room belongs to a different organization.']);
  });

  it('answers 400 with a detail for malformed JSON', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, undefined, { raw: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/JSON/);
  });

  it('refuses unknown fields by name', async () => {
    const sb = await startTestSandbox();
    const res = await sb.call('POST', sb.um, validBody(sb, { colour: 'blue' }));
    expect(res.status).toBe(400);
    expect(res.body.errors.colour).toEqual(['Unknown field.']);
  });
});

describe('read, replace, update, delete one configuration', () => {
  it('GET one answers 200 without the secret', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('GET', `${sb.um}/${config.id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(config.id);
    expect(res.body).not.toHaveProperty('webhook_secret_key');
  });

  it('GET, PUT, PATCH, DELETE one configuration | 404 | Configuration not found', async () => {
    const sb = await startTestSandbox();
    const path = `${sb.um}/${crypto.randomUUID()}`;
    for (const [method, body] of [['GET'], ['PUT', validBody(sb)], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      const res = await sb.call(method, path, body);
      expect(res.status, method).toBe(404);
      expect(res.body.detail).toMatch(/not found/i);
    }
  });

  it('PUT replaces every field; omitted max_retry_count returns to 3, omitted secret is kept and not returned', async () => {
    const sb = await startTestSandbox();
    const room = (await sb.call('POST', '/_sandbox/rooms', { name: 'Billing' })).body;
    const config = await sb.createConfig({ max_retry_count: 7 });
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 5 });
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, {
      name: 'Renamed',
      messaging_channel: 'ticket',
      room_id: room.id,
      reply_webhook_url: 'https://y.test/hook',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      messaging_channel: 'ticket',
      room_id: room.id,
      reply_webhook_url: 'https://y.test/hook',
      max_retry_count: 3,
      created_at: config.created_at,
    });
    expect(res.body).not.toHaveProperty('webhook_secret_key');
    expect(Date.parse(res.body.modified_at) - Date.parse(config.modified_at)).toBeGreaterThanOrEqual(5000);
  });

  it('PUT | 400 | Missing required fields: a partial body is refused and nothing changes', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, { name: 'Only name' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.errors).sort()).toEqual(['messaging_channel', 'reply_webhook_url', 'room_id']);
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).body.name).toBe(config.name);
  });

  it('PUT and PATCH | 400 | room not found or in a different organization', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    const config = await sb.createConfig();
    const put = await sb.call('PUT', `${sb.um}/${config.id}`, validBody(sb, { room_id: crypto.randomUUID() }));
    expect(put.status).toBe(400);
    expect(put.body.errors.room_id).toEqual(['Room not found.']);
    const patch = await sb.call('PATCH', `${sb.um}/${config.id}`, { room_id: info.foreign_room_id });
    expect(patch.status).toBe(400);
    expect(patch.body.errors.room_id).toEqual(['Room belongs to a different organization.']);
    const blank = await sb.call('PATCH', `${sb.um}/${config.id}`, { name: '' });
    expect(blank.status).toBe(400);
    expect(blank.body.errors.name).toBeDefined();
  });

  it('PATCH updates only the supplied fields and returns the secret only when it changed', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig({ max_retry_count: 6 });
    const path = `${sb.um}/${config.id}`;

    const renamed = await sb.call('PATCH', path, { name: 'New name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'New name', messaging_channel: 'email', max_retry_count: 6 });
    expect(renamed.body).not.toHaveProperty('webhook_secret_key');

    const same = await sb.call('PATCH', path, { webhook_secret_key: config.webhook_secret_key });
    expect(same.body).not.toHaveProperty('webhook_secret_key');

    const changed = await sb.call('PATCH', path, { webhook_secret_key: 'rotated-secret' });
    expect(changed.body.webhook_secret_key).toBe('rotated-secret');

    const regenerated = await sb.call('PATCH', path, { webhook_secret_key: null });
    expect(regenerated.body.webhook_secret_key).toMatch(HEX64);
    expect(regenerated.body.webhook_secret_key).not.toBe(config.webhook_secret_key);
  });

  it('PUT returns the secret when it supplies a different one', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('PUT', `${sb.um}/${config.id}`, validBody(sb, { webhook_secret_key: 'replaced' }));
    expect(res.body.webhook_secret_key).toBe('replaced');
  });

  it('PATCH moves modified_at forward', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 60 });
    const res = await sb.call('PATCH', `${sb.um}/${config.id}`, { max_retry_count: 1 });
    expect(Date.parse(res.body.modified_at) - Date.parse(config.modified_at)).toBeGreaterThanOrEqual(60_000);
    expect(res.body.created_at).toBe(config.created_at);
  });

  it('DELETE answers 204 with an empty body, and the configuration is gone', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    const res = await sb.call('DELETE', `${sb.um}/${config.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).status).toBe(404);
  });

  it("another organization's configuration is not found", async () => {
    const sb = await startTestSandbox();
    const other = await startTestSandbox();
    const config = await other.createConfig();
    expect((await sb.call('GET', `${sb.um}/${config.id}`)).status).toBe(404);
  });
});

type SortField = 'created_at' | 'modified_at' | 'messaging_channel';

async function everyConfiguration(sb: TestSandbox): Promise<ChannelConfiguration[]> {
  return Paginated(ChannelConfiguration).parse((await sb.call('GET', `${sb.um}?page_size=100`)).body).results;
}

/** The ids in the order the spec asks for, computed here independently of the sandbox. */
function expectedOrder(configs: ChannelConfiguration[], key: SortField, descending: boolean): string[] {
  const compare = (a: ChannelConfiguration, b: ChannelConfiguration) =>
    a[key] !== b[key] ? (a[key] < b[key] ? -1 : 1) : a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
  return [...configs].sort((a, b) => (descending ? -compare(a, b) : compare(a, b))).map((c) => c.id);
}

describe('list (GET collection)', () => {
  const Page = Paginated(ChannelConfiguration);

  async function createMany(sb: TestSandbox, count: number) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      // Distinct channels in reverse creation order, so the orderings disagree.
      const config = await sb.createConfig({ name: `c${i}`, messaging_channel: `ch-${String(count - i).padStart(2, '0')}` });
      ids.push(config.id);
      if (i % 5 === 4) await sb.call('POST', '/_sandbox/clock', { advance_seconds: 1 }); // some created_at ties, some not
    }
    return ids;
  }

  async function walk(sb: TestSandbox, first: string) {
    const pages: string[][] = [];
    const links: { next: string | null; previous: string | null }[] = [];
    let url: string | null = first;
    while (url !== null) {
      const res = await sb.call('GET', url.replace(sb.url, ''));
      expect(res.status).toBe(200);
      const page = Page.parse(res.body);
      pages.push(page.results.map((c) => c.id));
      links.push({ next: page.next, previous: page.previous });
      url = page.next;
    }
    return { pages, links };
  }

  it('walks 25 configurations 10 at a time with next, then back with previous, in -created_at order by default', async () => {
    const sb = await startTestSandbox();
    const ids = await createMany(sb, 25);
    const { pages, links } = await walk(sb, `${sb.url}${sb.um}?page_size=10`);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    // Newest first, every configuration exactly once.
    expect(pages.flat()).toEqual(expectedOrder(await everyConfiguration(sb), 'created_at', true));
    expect(new Set(pages.flat())).toEqual(new Set(ids));
    expect(links[0]!.previous).toBeNull();
    expect(links[2]!.next).toBeNull();
    for (const link of [links[0]!.next, links[1]!.next]) {
      const url = new URL(link!);
      expect(`${url.protocol}//${url.host}`).toBe(sb.url);
      expect(url.searchParams.get('cursor')).toBeTruthy();
    }

    // Back from the last page to the first.
    let previous = links[2]!.previous;
    const back: string[][] = [];
    while (previous !== null) {
      const page = Page.parse((await sb.call('GET', previous.replace(sb.url, ''))).body);
      back.push(page.results.map((c) => c.id));
      previous = page.previous;
    }
    expect(back).toEqual([pages[1], pages[0]]);
  });

  it('orders by created_at, -created_at, modified_at, -modified_at and messaging_channel, ties broken by id', async () => {
    const sb = await startTestSandbox();
    const created = await createMany(sb, 12);
    // Touch the oldest one so modified_at disagrees with created_at.
    const all = (await sb.call('GET', `${sb.um}?ordering=created_at&page_size=100`)).body.results as {
      id: string;
      created_at: string;
    }[];
    await sb.call('POST', '/_sandbox/clock', { advance_seconds: 10 });
    await sb.call('PATCH', `${sb.um}/${all[0]!.id}`, { name: 'touched' });

    const list = async (ordering: string) =>
      (await walk(sb, `${sb.url}${sb.um}?ordering=${ordering}&page_size=5`)).pages.flat();
    const full = await everyConfiguration(sb);
    const byKey = (key: SortField, descending: boolean) => expectedOrder(full, key, descending);

    expect(await list('created_at')).toEqual(byKey('created_at', false));
    expect(await list('-created_at')).toEqual(byKey('created_at', true));
    expect(await list('modified_at')).toEqual(byKey('modified_at', false));
    expect(await list('-modified_at')).toEqual(byKey('modified_at', true));
    expect(await list('messaging_channel')).toEqual(byKey('messaging_channel', false));
    expect((await list('-modified_at'))[0]).toBe(all[0]!.id);
    // The channels run backwards from creation, so the last one created sorts first.
    expect((await list('messaging_channel'))[0]).toBe(created[created.length - 1]);
  });

  it('uses a page size of 20 by default and refuses one over 100', async () => {
    const sb = await startTestSandbox();
    await createMany(sb, 21);
    const res = await sb.call('GET', sb.um);
    expect(res.body.results).toHaveLength(20);
    expect(res.body.next).not.toBeNull();
    expect((await sb.call('GET', `${sb.um}?page_size=101`)).status).toBe(400);
  });

  it('never includes webhook_secret_key in results', async () => {
    const sb = await startTestSandbox();
    await sb.createConfig();
    const res = await sb.call('GET', sb.um);
    expect(res.body.results).toHaveLength(1);
    expect(res.body.results[0]).not.toHaveProperty('webhook_secret_key');
  });

  it('answers 400 for an unknown ordering, a garbled cursor, or a cursor of another ordering', async () => {
    const sb = await startTestSandbox();
    await createMany(sb, 3);
    const bad = await sb.call('GET', `${sb.um}?ordering=name`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.ordering).toBeDefined();
    const garbled = await sb.call('GET', `${sb.um}?cursor=%%%`);
    expect(garbled.status).toBe(400);
    expect(garbled.body.detail).toBe('Invalid cursor.');
    const next = (await sb.call('GET', `${sb.um}?page_size=1`)).body.next as string;
    const cursor = new URL(next).searchParams.get('cursor')!;
    const mismatched = await sb.call('GET', `${sb.um}?ordering=created_at&cursor=${cursor}`);
    expect(mismatched.status).toBe(400);
  });

  it('lists only the configurations of the organization in the path', async () => {
    const sb = await startTestSandbox();
    const other = await startTestSandbox();
    await other.createConfig();
    expect((await sb.call('GET', sb.um)).body.results).toEqual([]);
  });
});
