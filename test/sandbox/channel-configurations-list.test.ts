/**
 * Channel configurations (spec 03), listing: GET collection with its
 * orderings, cursor pages both ways, page sizes, and its 400s.
 */
import { describe, expect, it } from 'vitest';
import { Paginated } from '../../src/platform/schemas/pagination.ts';
import { ChannelConfiguration } from '../../src/platform/schemas/unified-messaging.ts';
import { startTestSandbox, type TestSandbox } from './support.ts';

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
