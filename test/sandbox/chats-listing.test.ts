/**
 * The chat listings of spec 01 over real HTTP: rooms/<room_id>/chats and
 * owned_chats with every filter, both orderings (newest first by default),
 * cursor pagination (next, previous, results) and the documented statuses.
 */
import { describe, expect, it } from 'vitest';
import { ChatPage } from '../../src/platform/schemas/chats.ts';
import { at, startSpec01Sandbox, type Spec01Sandbox } from './spec01-support.ts';

const T0 = '2026-01-10T10:00:00.000Z';

/** Five chats one hour apart, each in a distinct state. */
async function seedVariety(sb: Spec01Sandbox) {
  const chats = {
    waitingEmpty: await sb.seedChat({ created_at: at(T0, 0) }),
    waitingVisitor: await sb.seedChat({ created_at: at(T0, 3600), messages: [{ sender: 'visitor', text: 'hi', created_at: at(T0, 3601) }] }),
    answered: await sb.seedChat({
      created_at: at(T0, 7200),
      messages: [
        { sender: 'visitor', text: 'hello', created_at: at(T0, 7201) },
        { sender: 'user', text: 'hi there', created_at: at(T0, 7230) },
      ],
    }),
    ended: await sb.seedChat({ created_at: at(T0, 10800), messages: [{ sender: 'visitor', text: 'bye' }], ended_at: at(T0, 10900) }),
    operator: await sb.seedChat({ created_at: at(T0, 14400), chat_type: 'operator', messages: [{ sender: 'user', text: 'note' }] }),
  };
  return chats;
}

const ids = (res: { body: { results: { id: string }[] } }) => res.body.results.map((c) => c.id);

describe('chat listings', () => {
  it('rooms/<room_id>/chats lists the room’s chats newest first by default, oldest first with ordering=created_at', async () => {
    const sb = await startSpec01Sandbox();
    const c = await seedVariety(sb);
    const otherRoom = (await sb.call('POST', '/_sandbox/rooms', { name: 'Sales' })).body.id;
    await sb.seedChat({ room_id: otherRoom, created_at: at(T0, 100) });

    const res = await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats`));
    expect(res.status).toBe(200);
    const page = ChatPage.parse(res.body);
    expect(page.results.map((r) => r.id)).toEqual([c.operator.id, c.ended.id, c.answered.id, c.waitingVisitor.id, c.waitingEmpty.id]);
    expect(page).toMatchObject({ next: null, previous: null });
    const ascending = await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats?ordering=created_at`));
    expect(ids(ascending)).toEqual([c.waitingEmpty.id, c.waitingVisitor.id, c.answered.id, c.ended.id, c.operator.id]);
    expect(ids(await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats?ordering=-created_at`)))).toEqual(ids(res));
  });

  it('owned_chats lists the chats of every room of the organization, never another organization’s', async () => {
    const sb = await startSpec01Sandbox();
    const otherRoom = (await sb.call('POST', '/_sandbox/rooms', { name: 'Sales' })).body.id;
    const a = await sb.seedChat({ created_at: at(T0, 0) });
    const b = await sb.seedChat({ room_id: otherRoom, created_at: at(T0, 60) });
    await sb.seedChat({ room_id: sb.foreignRoomId });
    const res = await sb.call('GET', sb.org('/owned_chats'));
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([b.id, a.id]);
    expect(res.body.results[0]).toMatchObject({ room_id: otherRoom, room_name: 'Sales', room_organization_id: sb.organizationId });
  });

  it('filters: is_waiting, is_ended, has_messages, has_user_messages, has_visitor_messages', async () => {
    const sb = await startSpec01Sandbox();
    const c = await seedVariety(sb);
    const list = async (query: string) => ids(await sb.call('GET', sb.org(`/owned_chats?ordering=created_at&${query}`)));
    expect(await list('is_waiting=true')).toEqual([c.waitingEmpty.id, c.waitingVisitor.id]);
    expect(await list('is_waiting=false')).toEqual([c.answered.id, c.ended.id, c.operator.id]);
    expect(await list('is_ended=true')).toEqual([c.ended.id]);
    expect(await list('is_ended=false')).toEqual([c.waitingEmpty.id, c.waitingVisitor.id, c.answered.id, c.operator.id]);
    expect(await list('has_messages=false')).toEqual([c.waitingEmpty.id]);
    expect(await list('has_messages=true')).toHaveLength(4);
    expect(await list('has_user_messages=true')).toEqual([c.answered.id, c.operator.id]);
    expect(await list('has_visitor_messages=true')).toEqual([c.waitingVisitor.id, c.answered.id, c.ended.id]);
    expect(await list('has_visitor_messages=false&has_user_messages=false')).toEqual([c.waitingEmpty.id]);
    expect(await list('is_waiting=false&is_ended=false&has_visitor_messages=true')).toEqual([c.answered.id]);
  });

  it('created_at_after and created_at_before select a range (both ends inclusive)', async () => {
    const sb = await startSpec01Sandbox();
    const c = await seedVariety(sb);
    const list = async (query: string) =>
      ids(await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats?ordering=created_at&${query}`)));
    expect(await list(`created_at_after=${at(T0, 3600)}`)).toEqual([c.waitingVisitor.id, c.answered.id, c.ended.id, c.operator.id]);
    expect(await list(`created_at_before=${at(T0, 3600)}`)).toEqual([c.waitingEmpty.id, c.waitingVisitor.id]);
    expect(await list(`created_at_after=${at(T0, 3601)}&created_at_before=${encodeURIComponent('2026-01-10T13:00:00+01:00')}`)).toEqual([
      c.answered.id,
    ]);
  });

  it('walks 45 chats in pages of 20 with next and previous cursors, in both orderings', async () => {
    const sb = await startSpec01Sandbox();
    const seeded: string[] = [];
    for (let i = 0; i < 45; i++) seeded.push((await sb.seedChat({ created_at: at(T0, i * 60) })).id);
    for (const [ordering, expected] of [['-created_at', [...seeded].reverse()], ['created_at', seeded]] as const) {
      const first = await sb.call('GET', sb.org(`/rooms/${sb.roomId}/chats?ordering=${ordering}&is_ended=false`));
      expect(first.body.previous).toBeNull();
      expect(ids(first)).toEqual(expected.slice(0, 20));
      const nextUrl = new URL(first.body.next);
      expect(nextUrl.searchParams.get('ordering')).toBe(ordering);
      expect(nextUrl.searchParams.get('is_ended')).toBe('false');
      const second = await sb.call('GET', nextUrl.pathname + nextUrl.search);
      expect(ids(second)).toEqual(expected.slice(20, 40));
      const third = await sb.call('GET', new URL(second.body.next).pathname + new URL(second.body.next).search);
      expect(ids(third)).toEqual(expected.slice(40));
      expect(third.body.next).toBeNull();
      const back = new URL(third.body.previous);
      expect(ids(await sb.call('GET', back.pathname + back.search))).toEqual(expected.slice(20, 40));
    }
  });

  it('a new chat created while walking pages does not shift the pages already walked', async () => {
    const sb = await startSpec01Sandbox();
    for (let i = 0; i < 25; i++) await sb.seedChat({ created_at: at(T0, i) });
    const first = await sb.call('GET', sb.org('/owned_chats'));
    await sb.seedChat({ created_at: at(T0, 3600) }); // newer than all: lands before page one
    const next = new URL(first.body.next);
    const second = await sb.call('GET', next.pathname + next.search);
    expect(second.body.results).toHaveLength(5);
    expect(ids(second).some((id) => ids(first).includes(id))).toBe(false);
  });

  it('400 for a bad query value, naming the parameter (ordering, booleans, datetimes, cursor, unknown)', async () => {
    const sb = await startSpec01Sandbox();
    const cases: [string, string][] = [
      ['ordering=updated_at', 'ordering'],
      ['is_waiting=yes', 'is_waiting'],
      ['is_ended=1', 'is_ended'],
      ['has_messages=maybe', 'has_messages'],
      ['has_user_messages=', 'has_user_messages'],
      ['has_visitor_messages=TRUE', 'has_visitor_messages'],
      ['created_at_after=yesterday', 'created_at_after'],
      ['created_at_before=2026-01-10', 'created_at_before'],
      ['colour=blue', 'colour'],
    ];
    for (const path of [sb.org('/owned_chats'), sb.org(`/rooms/${sb.roomId}/chats`)]) {
      for (const [query, field] of cases) {
        const res = await sb.call('GET', `${path}?${query}`);
        expect(res.status, query).toBe(400);
        expect(Object.keys(res.body.errors), query).toContain(field);
      }
      const bad = await sb.call('GET', `${path}?cursor=not-a-cursor`);
      expect(bad.status).toBe(400);
    }
  });

  it('a cursor only walks the ordering it came from (400 otherwise)', async () => {
    const sb = await startSpec01Sandbox();
    for (let i = 0; i < 21; i++) await sb.seedChat({ created_at: at(T0, i) });
    const next = new URL((await sb.call('GET', sb.org('/owned_chats'))).body.next);
    const cursor = next.searchParams.get('cursor')!;
    expect((await sb.call('GET', sb.org(`/owned_chats?ordering=created_at&cursor=${cursor}`))).status).toBe(400);
  });

  it('rooms/<room_id>/chats | 404 | room not found (unknown, or a room of another organization)', async () => {
    const sb = await startSpec01Sandbox();
    for (const room of [crypto.randomUUID(), sb.foreignRoomId]) {
      const res = await sb.call('GET', sb.org(`/rooms/${room}/chats`));
      expect(res.status).toBe(404);
      expect(res.body.detail).toMatch(/room/i);
    }
  });
});
