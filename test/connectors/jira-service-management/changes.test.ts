/**
 * How the Jira Service Management adapter finds changed requests, against
 * the counterpart of a Jira Cloud site: JQL dates at minute precision in the
 * account's own zone (or relative to Jira's clock when the zone is hidden),
 * a cursor on Jira's clock with an overlap that a late search index does not
 * outrun, and paging that loses nothing when requests change in the middle
 * of a listing — the listed twice are recognised, the never listed are none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JsmConnectorConfig } from '../../../connectors/jira-service-management/config.ts';
import { JsmAdapter } from '../../../connectors/jira-service-management/jsm-adapter.ts';
import { OVERLAP_MS } from '../../../connectors/jira-service-management/jsm-changes.ts';
import { startJsm, type JsmCounterpart, type JsmOptions } from '../../support/jira-service-management/jsm-counterpart.ts';
import { sleep } from '../../support/wait.ts';

const signal = new AbortController().signal;
const MINUTE = 60_000;
let open: JsmCounterpart[] = [];
afterEach(async () => {
  await Promise.all(open.map((j) => j.close()));
  open = [];
});

async function site(options: JsmOptions = {}, pageSize = 3) {
  const jsm = await startJsm(options);
  open.push(jsm);
  const adapter = new JsmAdapter(JsmConnectorConfig.parse({ url: jsm.url, email: jsm.gateway.email, api_token: jsm.gateway.apiToken, service_desk: 'HELP' }), { searchPageSize: pageSize });
  return { jsm, adapter };
}
const ids = (list: { changes: { id: string }[] }) => list.changes.map((c) => c.id);

describe('the Jira Service Management adapter, finding changes', () => {
  for (const zone of ['Pacific/Chatham', 'America/St_Johns', 'UTC', null]) {
    it(`lists each change once from the cursor, the account's zone ${zone ?? 'hidden'}`, async () => {
      const { jsm, adapter } = await site({ gatewayZone: zone });
      const start = await adapter.listChanges(undefined, signal);
      const a = await jsm.openRequest(jsm.customer, { summary: 'A', description: 'x' });
      const b = await jsm.openRequest(jsm.customer, { summary: 'B', description: 'x' });
      await jsm.comment(jsm.customer, a.id, 'A again');
      const first = await adapter.listChanges(start.nextSince, signal);
      expect(ids(first)).toEqual([b.id, a.id]);
      await jsm.transition(jsm.agent, b.id, 'resolve');
      const second = await adapter.listChanges(first.nextSince, signal);
      expect(ids(second)).toEqual([a.id, b.id]);
      expect(second.changes[1]!.updatedAt).not.toBe(first.changes[0]!.updatedAt);
      const bound = /updated\+%3E%3D\+([^&+]+(?:\+[^&]+)?)\+ORDER/.exec(jsm.server.requests.filter((r) => r.includes('search/jql')).at(-1)!)?.[1];
      expect(decodeURIComponent(bound!.replace(/\+/g, ' '))).toMatch(zone === null ? /^"-\d+m"$/ : /^"\d{4}\/\d\d\/\d\d \d\d:\d\d"$/);
    });
  }

  it('the cursor follows Jira’s clock, less the overlap, not the gateway’s', async () => {
    const { jsm, adapter } = await site();
    jsm.store.skewMs = -3_600_000;
    const start = Date.parse((await adapter.listChanges(undefined, signal)).nextSince);
    expect(Math.abs(start - (Date.now() - 3_600_000 - OVERLAP_MS))).toBeLessThan(5_000);
  });

  it('a change the search index shows late is still listed by a later round', async () => {
    const { jsm, adapter } = await site();
    jsm.store.searchLagMs = 1_500;
    const start = await adapter.listChanges(undefined, signal);
    const a = await jsm.openRequest(jsm.customer, { summary: 'Late', description: 'x' });
    const first = await adapter.listChanges(start.nextSince, signal);
    expect(ids(first)).toEqual([]);
    await sleep(1_600);
    expect(ids(await adapter.listChanges(first.nextSince, signal))).toEqual([a.id]);
  });

  it('a request changed between two pages of one minute shifts another past a page: the cursor is held back, and the next round lists it', async () => {
    const { jsm, adapter } = await site();
    // Eight requests changed an hour ago, in the first second of one minute (so that no page boundary is a new minute).
    jsm.store.skewMs = -3_600_000 - (Date.now() % MINUTE) + 1_000;
    const made: string[] = [];
    for (let i = 0; i < 8; i++) made.push((await jsm.openRequest(jsm.customer, { summary: `R${i}`, description: 'x' })).id);
    jsm.store.skewMs = 0;
    const since = new Date(jsm.store.issue(made[0]!)!.created).toISOString();
    let searches = 0;
    jsm.server.onRequest = async ({ path }) => {
      if (path.endsWith('/search/jql') && ++searches === 2) await jsm.comment(jsm.customer, made[0]!, 'changed while listed');
    };
    const first = await adapter.listChanges(since, signal);
    jsm.server.onRequest = undefined;
    const missed = made.filter((id) => !ids(first).includes(id));
    expect(missed).toHaveLength(1); // the counterpart's token pages by offset: one request slipped past a page
    expect(Date.parse(first.nextSince)).toBeLessThanOrEqual(Date.parse(since));
    const second = await adapter.listChanges(first.nextSince, signal);
    expect(ids(second)).toEqual(expect.arrayContaining(missed));
  });

  it('keyset paging across minutes lists every request once, in the order of change', async () => {
    const { jsm, adapter } = await site({}, 2);
    jsm.store.skewMs = -3_600_000 - (Date.now() % MINUTE) + 1_000;
    const made: string[] = [];
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 3; i++) made.push((await jsm.openRequest(jsm.customer, { summary: `M${minute}.${i}`, description: 'x' })).id);
      jsm.store.skewMs += MINUTE;
    }
    jsm.store.skewMs = 0;
    const list = await adapter.listChanges(new Date(jsm.store.issue(made[0]!)!.created).toISOString(), signal);
    expect(ids(list)).toEqual(made);
    expect(jsm.server.requests.filter((r) => r.includes('search/jql') && !r.includes('nextPageToken')).length).toBeGreaterThanOrEqual(3);
  });
});
