/**
 * The Redmine connector when things go wrong, against the run's real Redmine
 * (behind a proxy the test slows down or takes down) and the sandbox: a
 * gateway stopped in the middle of a poll round, Redmine unreachable, and a
 * wrong url or API key at start-up.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConnectors } from '../../../src/connector/registry.ts';
import { until } from '../../support/wait.ts';
import { chatTexts, openStoppedStore, type TestGateway } from '../../support/gateway.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';
import { ARRIVES_MS, CONNECTOR, allVisitorTexts, chatOfIssue, health, helpDesk } from './support.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

type Gateway = TestGateway;
const stored = async (tg: Gateway) =>
  (await tg.gateway.store.read.sql.get(`select count(*) as n, count(distinct external_id) as d from inbound_messages where connector = ? and kind = 'message'`, [CONNECTOR])) as { n: number; d: number };
const cursorOf = async (tg: Gateway) =>
  ((await tg.gateway.store.read.sql.get(`select value from connector_state where connector = ? and key = 'cursor'`, [CONNECTOR])) as { value: string } | undefined)?.value;
/** The same, read from the store of a stopped gateway. */
async function afterStop<T>(tg: Gateway, read: (tg: Gateway) => Promise<T>): Promise<T> {
  const store = await openStoppedStore(tg);
  try {
    return await read({ gateway: { store } } as unknown as Gateway);
  } finally {
    await store.close();
  }
}

describe('Redmine connector, nothing lost or doubled', () => {
  it('a gateway stopped in the middle of a poll round posts nothing twice and misses nothing after its restart', { timeout: 90_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const first = await helpDesk(rm, { url: proxy.url });
    await first.tg.gateway.close();
    const expected: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const id = await rm.createIssue(first.project, { subject: `Ticket ${i}`, description: `Body ${i}` });
      await rm.addNote(id, `Note ${i}`);
      expected.push(`Ticket ${i}\n\nBody ${i}`, `Note ${i}`);
    }

    // A slow Redmine: the round (1 list + 5 reads) takes seconds; stop once some of it was submitted.
    proxy.delayMs = 250;
    const second = await helpDesk(rm, { url: proxy.url, project: first.project, after: first.tg, noWait: true });
    const cursorBefore = (await cursorOf(second.tg));
    await until(async () => (await stored(second.tg)).n >= 3, ARRIVES_MS, 'part of the round to be stored');
    await second.tg.gateway.close();
    expect((await afterStop(second.tg, stored)).n).toBeLessThan(10);
    expect(await afterStop(second.tg, cursorOf)).toBe(cursorBefore); // the round did not finish: the cursor stayed

    const late = await rm.createIssue(first.project, { subject: 'While stopped', description: 'again' });
    await rm.addNote(late, 'Late note');
    expected.push('While stopped\n\nagain', 'Late note');

    proxy.delayMs = 0;
    const third = await helpDesk(rm, { url: proxy.url, project: first.project, after: first.tg, noWait: true });
    await until(async () => (await allVisitorTexts(third.tg)).length >= expected.length, ARRIVES_MS * 2, 'every message after the restart');
    await until(async () => (await health(third.tg)).details.polls >= 2, ARRIVES_MS, 'two more polls');
    expect(await allVisitorTexts(third.tg)).toEqual([...expected].sort());
    expect((await stored(third.tg))).toEqual({ n: expected.length, d: expected.length });
  });

  it('Redmine unreachable only delays: the connector reports it, then posts what came meanwhile, once', { timeout: 90_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const { tg, project } = await helpDesk(rm, { url: proxy.url });
    const issue = await rm.createIssue(project, { subject: 'Before', description: 'the outage' });
    const thread = await chatOfIssue(tg, rm, issue);

    proxy.down = true;
    await until(async () => (await health(tg)).ok === false, ARRIVES_MS, 'the connector to report the outage');
    expect((await health(tg)).details.last_error).toContain('cannot reach Redmine');
    await rm.addNote(issue, 'Written while Redmine was unreachable for the gateway.');
    const other = await rm.createIssue(project, { subject: 'During', description: 'the outage' });
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Looking into it.' });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Before\n\nthe outage']);

    proxy.down = false;
    await until(async () => (await health(tg)).ok, 30_000, 'the connector to recover');
    await chatOfIssue(tg, rm, other);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the note written meanwhile');
    await until(async () => (await rm.journals(issue)).some((j) => j.user.id === rm.seed.gateway_id), 30_000, 'the agent reply, retried');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await allVisitorTexts(tg)).toEqual(['Before\n\nthe outage', 'During\n\nthe outage', 'Written while Redmine was unreachable for the gateway.']);
    expect((await rm.journals(issue)).filter((j) => j.user.id === rm.seed.gateway_id)).toHaveLength(1);
  });
  it('a note Redmine stored but whose answer was lost is not written twice by the retry', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const { tg, project } = await helpDesk(rm, { url: proxy.url });
    const issue = await rm.createIssue(project, { subject: 'Lost answer', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    proxy.dropPutAnswers = 1;
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Only once, please.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, 30_000, 'the delivery, after a retry');
    const own = (await rm.journals(issue)).filter((j) => j.user.id === rm.seed.gateway_id);
    expect(own).toHaveLength(1);
    expect(proxy.dropPutAnswers).toBe(0);
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(`journal-${own[0]!.id}`);
  });
});

describe('Redmine connector, retried notes', () => {
  it('a retried reply whose text an earlier note already has is still written (matched by its reference, not its text)', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const { tg, project } = await helpDesk(rm, { url: proxy.url });
    const issue = await rm.createIssue(project, { subject: 'Same words', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    const own = async () => (await rm.journals(issue)).filter((j) => j.user.id === rm.seed.gateway_id);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Thanks!' });
    await until(async () => (await own()).length === 1, ARRIVES_MS, 'the first reply');
    proxy.fail = { match: new RegExp(`^PUT /issues/${issue}\\.json$`), times: 1 }; // the second is not stored the first time
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Thanks!' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 2, 30_000, 'both delivered, the second after a retry');
    expect(proxy.fail.times).toBe(0);
    expect((await own()).map((j) => j.notes?.endsWith('\n\nThanks!'))).toEqual([true, true]);
  });
});

describe('Redmine connector, one bad ticket', () => {
  it('an issue Redmine keeps failing on (500) is given up on the third try, recorded and logged; the others are posted', { timeout: 60_000 }, async () => {
    const proxy = await startTicketSystemProxy(rm.url);
    const logLines: string[] = [];
    const { tg, project } = await helpDesk(rm, { url: proxy.url, logLines });
    const bad = await rm.createIssue(project, { subject: 'Breaks Redmine', description: 'x' });
    proxy.fail = { match: new RegExp(`^GET /issues/${bad}\\.json$`), times: Number.POSITIVE_INFINITY };
    const good = await rm.createIssue(project, { subject: 'Fine', description: 'y' });
    const thread = await chatOfIssue(tg, rm, good);
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Fine\n\ny']);
    const skipped = (await tg.gateway.store.read.skipped.list(CONNECTOR));
    expect(skipped.map((s) => s.code)).toEqual(['TG_TICKET_UNHANDLED']);
    await until(async () => (await health(tg)).ok, ARRIVES_MS, 'the connector healthy again');
    expect((await health(tg)).details.given_up).toBe(1);
    const errors = logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
    expect(errors.map((e) => e.msg).join('\n')).toMatch(new RegExp(`giving up on .*/issues/${bad}#read@`));
  });
});

describe('Redmine connector, wrong settings', () => {
  it('a wrong API key: the gateway runs, the connector is unhealthy with Redmine’s 401 and says so in the log', async () => {
    const project = await rm.newProject();
    const logLines: string[] = [];
    const { tg } = await helpDesk(rm, { project, extra: { api_key: 'not-a-valid-key' }, noWait: true, logLines });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two start-up attempts');
    const h = await health(tg);
    expect(h.ok).toBe(false);
    expect(h.details.connected).toBe(false);
    expect(h.details.last_error).toContain('401');
    expect((await tg.call('GET', '/healthz')).status).toBe(200);
    const errors = logLines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1); // said loudly once, not at every retry
    expect(errors.map((e) => e.msg).join('\n')).toMatch(/cannot start: Redmine at .* answered GET \/users\/current.json with 401 \(the API key was refused\)/);
    expect(logLines.join('\n')).not.toContain('not-a-valid-key');
  });

  it('a url where no Redmine answers, and a project the key cannot see: unhealthy with the reason, retried', async () => {
    const project = await rm.newProject();
    const closed = await startTicketSystemProxy(rm.url);
    closed.down = true;
    const { tg } = await helpDesk(rm, { project, url: closed.url, noWait: true });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two failed start-up attempts');
    expect((await health(tg)).details.last_error).toContain('cannot reach Redmine');
    closed.down = false;
    await until(async () => (await health(tg)).ok, 30_000, 'the connector to start once Redmine answers');

    const hidden = await helpDesk(rm, { project: 'no-such-project', noWait: true });
    await until(async () => (await health(hidden.tg)).details.last_error != null, ARRIVES_MS, 'the project error');
    expect((await health(hidden.tg)).details.last_error).toContain('no project "no-such-project"');
  });

  it('a url that is not an http(s) URL, or one with a password, is refused when the settings are read, naming the key', async () => {
    const entry = { name: CONNECTOR, type: 'redmine', api_key: 'secret-key-1', project: 'support' };
    const { problems } = await loadConnectors([{ ...entry, url: 'redmine.example.com' }, { ...entry, name: 'b', url: 'https://u:pw@redmine.example.com' }], tempDir());
    expect(problems.map((p) => p.path)).toEqual([['connectors', 0, 'url'], ['connectors', 1, 'url']]);
    expect(JSON.stringify(problems)).not.toContain('secret-key-1');
  });
});
