/**
 * Event listing (spec 02): the generic-event type catalog, generic events and
 * message events, with the documented limits — a window of at most 2 days on
 * collector_created_at, pages of 250 rows, a cursor that makes every other
 * body field ignored — and the organization in the path equal to the caller's.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_LISTING_LIMITS } from '../../src/platform/schemas/event-listing.ts';
import { startTestSandbox, visitorMessage, type TestSandbox } from './support.ts';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const HOUR = 3_600_000;
const window = { start: at(0), end: at(24 * HOUR) };

const objectives = (sb: TestSandbox) => `/api/objectives/v1/orgs/${sb.organizationId}`;
const seedGeneric = (sb: TestSandbox, events: Record<string, unknown>[]) => sb.call('POST', '/_sandbox/reporting-events', { events });
const seedMessages = (sb: TestSandbox, events: Record<string, unknown>[]) => sb.call('POST', '/_sandbox/message-events', { events });

describe('generic events', () => {
  it('lists the window’s events (start ≤ collector_created_at < end) in collector_created_at order with both times', async () => {
    const sb = await startTestSandbox();
    await seedGeneric(sb, [
      { collector_created_at: at(2 * HOUR), timestamp: at(2 * HOUR + 3), vendor: 'shop', category: 'cart', action: 'add', value: 19.9 },
      { collector_created_at: at(0), vendor: 'platform', category: 'goal', action: 'trigger', label: 'g-1' },
      { collector_created_at: at(24 * HOUR), vendor: 'shop', category: 'cart', action: 'late' },
      { collector_created_at: at(-1), vendor: 'shop', category: 'cart', action: 'early' },
    ]);

    const res = await sb.call('POST', `${objectives(sb)}/events`, window);
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.results.map((e: { action: string }) => e.action)).toEqual(['trigger', 'add']);
    expect(res.body.results[1]).toMatchObject({
      collector_created_at: at(2 * HOUR),
      timestamp: at(2 * HOUR + 3),
      vendor: 'shop',
      category: 'cart',
      value: 19.9,
      label: null,
      properties: {},
    });
    expect(res.body.results[0].timestamp).toBe(res.body.results[0].collector_created_at);
  });

  it('filters: every key must match, a list matches any of its values; an unknown column is a 400', async () => {
    const sb = await startTestSandbox();
    await seedGeneric(sb, [
      { collector_created_at: at(1), vendor: 'shop', category: 'cart', action: 'add' },
      { collector_created_at: at(2), vendor: 'shop', category: 'cart', action: 'remove' },
      { collector_created_at: at(3), vendor: 'chat', category: 'widget', action: 'open' },
    ]);
    const actions = async (filters: unknown) =>
      (await sb.call('POST', `${objectives(sb)}/events`, { ...window, filters })).body.results.map((e: { action: string }) => e.action);

    expect(await actions({ vendor: 'shop' })).toEqual(['add', 'remove']);
    expect(await actions({ vendor: ['shop', 'chat'], action: ['remove', 'open'] })).toEqual(['remove', 'open']);
    const bad = await sb.call('POST', `${objectives(sb)}/events`, { ...window, filters: { colour: 'red' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['filters.colour']);
  });

  it('a $name value set is allowed only next to a concrete field, and an unknown set is a 400', async () => {
    const sb = await startTestSandbox();
    await sb.call('POST', '/_sandbox/value-sets', { name: 'goals', values: ['g-1', 'g-3'] });
    await seedGeneric(sb, ['g-1', 'g-2', 'g-3'].map((label, i) => ({ collector_created_at: at(i + 1), vendor: 'platform', category: 'goal', label })));
    const post = (filters: unknown) => sb.call('POST', `${objectives(sb)}/events`, { ...window, filters });

    const ok = await post({ category: 'goal', label: '$goals' });
    expect(ok.body.results.map((e: { label: string }) => e.label)).toEqual(['g-1', 'g-3']);
    const alone = await post({ label: '$goals' });
    expect(alone.status).toBe(400);
    expect(alone.body.errors.filters[0]).toMatch(/concrete field/);
    const unknown = await post({ category: 'goal', label: '$nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors['filters.label'][0]).toMatch(/Unknown value set/);
  });

  it('pages of 250 rows; the cursor walks every row once; with a cursor every other field is ignored', async () => {
    const sb = await startTestSandbox();
    const total = 2 * EVENT_LISTING_LIMITS.pageSize + 37;
    const seeded = Array.from({ length: total }, (_, i) => ({ collector_created_at: at(Math.floor(i / 3) * 1000), vendor: 'v', category: 'c', action: `a${i}` }));
    expect((await seedGeneric(sb, seeded)).status).toBe(201);

    const first = await sb.call('POST', `${objectives(sb)}/events`, window);
    expect(first.body.results).toHaveLength(250);
    expect(typeof first.body.next_cursor).toBe('string');

    // The same cursor with a contradicting window, filters and an unknown field: all ignored.
    const cursor = first.body.next_cursor as string;
    const plain = await sb.call('POST', `${objectives(sb)}/events`, { cursor });
    const noisy = await sb.call('POST', `${objectives(sb)}/events`, {
      cursor, start: at(-10 * 24 * HOUR), end: 'not a date', filters: { vendor: 'nobody' }, whatever: true,
    });
    expect(noisy.status).toBe(200);
    expect(noisy.body).toEqual(plain.body);
    expect(plain.body.results).toHaveLength(250);

    const last = await sb.call('POST', `${objectives(sb)}/events`, { cursor: plain.body.next_cursor });
    expect(last.body.results).toHaveLength(37);
    expect(last.body.next_cursor).toBeNull();
    const ids = [...first.body.results, ...plain.body.results, ...last.body.results].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(total);
    // Rows sharing a collector_created_at (three per second here) keep the order they were recorded in.
    const actions = [...first.body.results, ...plain.body.results, ...last.body.results].map((e: { action: string }) => e.action);
    expect(actions).toEqual(seeded.map((e) => e.action));
  });

  it('the window is at most 2 days: exactly 2 days is served, longer or reversed or missing is a 400 naming the field', async () => {
    const sb = await startTestSandbox();
    const post = (body: unknown) => sb.call('POST', `${objectives(sb)}/events`, body);
    expect((await post({ start: at(0), end: at(48 * HOUR) })).status).toBe(200);

    const long = await post({ start: at(0), end: at(48 * HOUR + 1) });
    expect(long.status).toBe(400);
    expect(long.body.errors.end[0]).toMatch(/at most 2 days/);
    expect((await post({ start: at(HOUR), end: at(0) })).body.errors.end).toEqual(['Must be later than start.']);
    expect((await post({ end: at(HOUR) })).body.errors).toEqual({ start: ['This field is required.'] });
    expect((await post({ ...window, cursor: 42 })).body.errors.cursor).toHaveLength(1);
  });

  it('a cursor that is not one of this listing and organization is a 400', async () => {
    const sb = await startTestSandbox();
    await seedGeneric(sb, Array.from({ length: 251 }, (_, i) => ({ collector_created_at: at(i), action: 'x' })));
    const cursor = (await sb.call('POST', `${objectives(sb)}/events`, window)).body.next_cursor as string;

    const elsewhere = await sb.call('POST', `${objectives(sb)}/message-events`, { cursor });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.detail).toBe('Invalid cursor.');
    expect(Object.keys(elsewhere.body.errors)).toEqual(['cursor']);
    expect((await sb.call('POST', `${objectives(sb)}/events`, { cursor: 'garbage' })).status).toBe(400);
  });

  it('a hand-made or altered cursor cannot widen the 2-day window: 400 naming cursor', async () => {
    const sb = await startTestSandbox();
    // One event every 10 minutes for almost 7 days: 288 of them lie in the first 2 days.
    await seedGeneric(sb, Array.from({ length: 1000 }, (_, i) => ({ collector_created_at: at(i * 10 * 60_000), action: `a${i}` })));
    const first = await sb.call('POST', `${objectives(sb)}/events`, { start: at(0), end: at(48 * HOUR) });
    expect(first.body.results).toHaveLength(250);
    const cursor = first.body.next_cursor as string;
    expect((await sb.call('POST', `${objectives(sb)}/events`, { cursor })).body.results).toHaveLength(38);

    const [payload = '', mac = ''] = cursor.split('.');
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    expect(state.query.end - state.query.start).toBe(48 * HOUR);
    const widened = Buffer.from(JSON.stringify({ ...state, query: { ...state.query, end: T0 + 10 * 24 * HOUR } })).toString('base64url');
    const forged = [
      `${widened}.${mac}`, // the window altered, the old signature kept
      widened, // unsigned, as cursors used to be
      `${payload}.${Buffer.alloc(32).toString('base64url')}`, // a made-up signature
      `${payload}.${mac.slice(0, -2)}`, // a truncated signature
    ];
    for (const bad of forged) {
      const res = await sb.call('POST', `${objectives(sb)}/events`, { cursor: bad });
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expect(res.body.detail).toBe('Invalid cursor.');
      expect(Object.keys(res.body.errors)).toEqual(['cursor']);
    }

    // Another sandbox's cursor, for the same organization id and query, is not this one's either.
    const other = await startTestSandbox({ organizationId: sb.organizationId });
    await seedGeneric(other, Array.from({ length: 251 }, (_, i) => ({ collector_created_at: at(i), action: 'x' })));
    const foreign = (await other.call('POST', `${objectives(other)}/events`, window)).body.next_cursor as string;
    expect((await other.call('POST', `${objectives(other)}/events`, { cursor: foreign })).status).toBe(200);
    expect((await sb.call('POST', `${objectives(sb)}/events`, { cursor: foreign })).status).toBe(400);
  });
});

describe('event-type catalog', () => {
  it('answers every distinct (vendor, category, action) mask emitted, without a cap, and takes filters', async () => {
    const sb = await startTestSandbox();
    const many = Array.from({ length: 300 }, (_, i) => ({ collector_created_at: at(i), vendor: 'custom', category: 'c', action: `act-${String(i).padStart(3, '0')}` }));
    await seedGeneric(sb, [...many, ...many, { vendor: 'shop', category: 'cart' }]);

    const res = await sb.call('POST', `${objectives(sb)}/event-types`, {});
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(301);
    expect(res.body.results).toContainEqual({ vendor: 'shop', category: 'cart', action: null });
    const shop = await sb.call('POST', `${objectives(sb)}/event-types`, { filters: { vendor: 'shop' } });
    expect(shop.body.results).toEqual([{ vendor: 'shop', category: 'cart', action: null }]);
    const topLevel = await sb.call('POST', `${objectives(sb)}/event-types`, { vendor: 'shop' });
    expect(topLevel.body).toEqual(shop.body);
    expect((await sb.call('POST', `${objectives(sb)}/event-types`, { colour: 'red' })).status).toBe(400);
  });
});

describe('message events', () => {
  it('lists seeded message events and the sandbox chats’ own messages, filterable to type msg', async () => {
    const sb = await startTestSandbox();
    const config = await sb.createConfig();
    await sb.postMessages(config.id, { messages: [visitorMessage('thread-1', 'Hi')] });
    const now = Date.parse((await sb.info()).now);
    await seedMessages(sb, [{ collector_created_at: new Date(now - HOUR).toISOString(), chat_id: 'seeded-chat', sender_type: 'visitor' }]);

    const body = { start: new Date(now - 2 * HOUR).toISOString(), end: new Date(now + HOUR).toISOString() };
    const all = await sb.call('POST', `${objectives(sb)}/message-events`, body);
    expect(all.status).toBe(200);
    expect(all.body.results.map((e: { type: string }) => e.type)).toEqual(['msg', 'join', 'msg']);
    const msgs = await sb.call('POST', `${objectives(sb)}/message-events`, { ...body, filters: { type: 'msg' } });
    expect(msgs.body.results.map((e: { chat_id: string }) => e.chat_id)).toEqual(['seeded-chat', expect.any(String)]);
    expect(msgs.body.results[1]).toMatchObject({ sender_type: 'visitor', room_id: sb.roomId });
    expect(msgs.body.results[1]).not.toHaveProperty('case');
  });

  it('case flags (off by default): include_case attaches the case to each message, only_with_case keeps messages of a case', async () => {
    const sb = await startTestSandbox();
    await seedMessages(sb, [
      { collector_created_at: at(1), message_id: 'm1', case_id: 'case-7' },
      { collector_created_at: at(2), message_id: 'm2' },
    ]);
    const post = (flags: object) => sb.call('POST', `${objectives(sb)}/message-events`, { ...window, ...flags });

    expect((await post({ include_case: true })).body.results.map((e: { message_id: string; case: unknown }) => [e.message_id, e.case])).toEqual([
      ['m1', { id: 'case-7' }],
      ['m2', null],
    ]);
    expect((await post({ only_with_case: true })).body.results.map((e: { message_id: string }) => e.message_id)).toEqual(['m1']);
    expect((await post({ include_case: 'yes' })).status).toBe(400);
    // value sets are for generic-event filters only
    await sb.call('POST', '/_sandbox/value-sets', { name: 'ids', values: ['m1'] });
    expect((await post({ filters: { type: 'msg', message_id: '$ids' } })).status).toBe(400);
  });
});

describe('event listing access', () => {
  it('401 without credentials; 403 when the path’s organization is not the caller’s, known or not', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    for (const suffix of ['/event-types', '/events', '/message-events']) {
      expect((await sb.call('POST', `${objectives(sb)}${suffix}`, window, { authorization: null })).status).toBe(401);
      const foreign = await sb.call('POST', `/api/objectives/v1/orgs/${info.foreign_organization_id}${suffix}`, window);
      expect(foreign.status).toBe(403);
      expect(foreign.body.detail).toMatch(/authenticated organization/);
      expect((await sb.call('POST', `/api/objectives/v1/orgs/not-an-org${suffix}`, window)).status).toBe(403);
    }
  });

  it('each organization lists only its own events', async () => {
    const sb = await startTestSandbox();
    const info = await sb.info();
    await sb.call('POST', '/_sandbox/reporting-events', { organization_id: info.foreign_organization_id, events: [{ collector_created_at: at(1), action: 'theirs' }] });
    await seedGeneric(sb, [{ collector_created_at: at(2), action: 'ours' }]);
    const res = await sb.call('POST', `${objectives(sb)}/events`, window);
    expect(res.body.results.map((e: { action: string }) => e.action)).toEqual(['ours']);
  });
});
