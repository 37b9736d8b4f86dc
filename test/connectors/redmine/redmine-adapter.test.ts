/**
 * The Redmine `TicketAdapter` on its own, against the run's real Redmine:
 * who the gateway is, what "changed since" lists (all pages, tracker filter),
 * how journals map to entries (private, closed, reopened, line ends), notes
 * written as the gateway, and Redmine's refusals as `TicketSystemError`s.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { RedmineConnectorConfig } from '../../../connectors/redmine/config.ts';
import { RedmineAdapter } from '../../../connectors/redmine/redmine-adapter.ts';
import { TicketSystemError } from '../../../connectors/ticket/ticket-adapter.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { recordingContext } from '../webhook/recording-context.ts';
import { startTicketSystemProxy } from '../../support/ticket-system-proxy.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

const signal = new AbortController().signal;
const adapterFor = (project: string, extra: Record<string, unknown> = {}, options: ConstructorParameters<typeof RedmineAdapter>[1] = {}) =>
  new RedmineAdapter(RedmineConnectorConfig.parse({ url: rm.url, api_key: rm.seed.gateway_key, project, ...extra }), options);
const redmineTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

async function refusal(promise: Promise<unknown>): Promise<TicketSystemError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(TicketSystemError);
  return err as TicketSystemError;
}

describe('Redmine adapter', () => {
  it('connect names the API key’s user; a wrong key, project or tracker is refused with the reason', async () => {
    const project = await rm.newProject();
    expect(await adapterFor(project).connect(signal)).toEqual({ id: String(rm.seed.gateway_id), name: 'Threadgate Gateway' });

    const badKey = await refusal(adapterFor(project, { api_key: 'wrong' }).connect(signal));
    expect(badKey.status).toBe(401);
    expect(badKey.refused).toBe(true);
    expect(badKey.message).toContain('the API key was refused');
    expect(badKey.message).not.toContain('wrong');

    expect((await refusal(adapterFor('not-there').connect(signal))).message).toContain('no project "not-there"');
    expect((await refusal(adapterFor(project, { tracker: 'Nope' }).connect(signal))).message).toMatch(/no tracker named "Nope" \(it has: Bug, Feature, Support\)/);
  });

  it('lists the issues changed since a time in change order, over every page, of the tracker asked for', { timeout: 90_000 }, async () => {
    const project = await rm.newProject({ trackerIds: [1, 3] });
    const adapter = adapterFor(project, { tracker: 'Support' });
    await adapter.connect(signal);
    const start = await adapter.listChanges(undefined, signal);
    expect(start.changes).toEqual([]);
    expect(start.nextSince).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const ids: number[] = [];
    for (let i = 0; i < 103; i++) ids.push(await rm.createIssue(project, { subject: `s${i}`, tracker_id: 3 }));
    const bug = await rm.createIssue(project, { subject: 'a bug', tracker_id: 1 });
    await rm.addNote(ids[0]!, 'moves the first to the end');
    const listed = await adapter.listChanges(start.nextSince, signal);
    // Every one once, the bug not at all, in change order (ties of one second in any order).
    expect(listed.changes.map((c) => Number(c.id)).sort((a, b) => a - b)).toEqual(ids);
    expect(listed.changes.map((c) => Number(c.id))).not.toContain(bug);
    const times = listed.changes.map((c) => Date.parse(c.updatedAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(listed.changes.at(-1)!.updatedAt).toBe(listed.changes.find((c) => c.id === String(ids[0]))!.updatedAt);
    expect(Date.parse(listed.nextSince)).toBeGreaterThanOrEqual(Date.parse(start.nextSince));
  });

  it('reads an issue with its journals as entries: notes, private notes, closing and reopening', async () => {
    const project = await rm.newProject();
    const adapter = adapterFor(project);
    await adapter.connect(signal);
    const id = await rm.createIssue(project, { subject: 'Printer', description: 'line 1\r\nline 2' });
    await rm.addNote(id, 'public\r\nnote');
    await rm.addNote(id, 'staff only', { private: true });
    await rm.setStatus(id, rm.seed.closed_status_id);
    await rm.setStatus(id, rm.seed.open_status_id);
    await adapter.addNote(String(id), { text: 'from the gateway', private: false }, signal);

    const ticket = await adapter.readTicket(String(id), signal);
    expect(ticket).toMatchObject({ id: String(id), subject: 'Printer', description: 'line 1\nline 2', closed: false, webUrl: `${rm.url}/issues/${id}` });
    expect(ticket.author).toEqual({ id: String(rm.seed.customer_id), name: 'Ann Customer' });
    expect(ticket.entries.map((e) => ({ text: e.text, private: e.private, statusChange: e.statusChange, own: adapter.isOwnEntry(e) }))).toEqual([
      { text: 'public\nnote', private: false, statusChange: null, own: false },
      { text: 'staff only', private: true, statusChange: null, own: false },
      { text: '', private: false, statusChange: 'closed', own: false },
      { text: '', private: false, statusChange: 'reopened', own: false },
      { text: 'from the gateway', private: false, statusChange: null, own: true },
    ]);
    const seqs = ticket.entries.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(adapter.ticketIdOf(adapter.threadKey(String(id)))).toBe(String(id));
    expect(adapter.ticketIdOf('elsewhere.example/issues/7')).toBeUndefined();
  });

  it('an issue updated between two page requests shifts no other issue past a page boundary', async () => {
    const project = await rm.newProject();
    const proxy = await startTicketSystemProxy(rm.url);
    const adapter = new RedmineAdapter(RedmineConnectorConfig.parse({ url: proxy.url, api_key: rm.seed.gateway_key, project }), { pageSize: 3 });
    await adapter.connect(signal);
    const start = await adapter.listChanges(undefined, signal);
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(await rm.createIssue(project, { subject: `s${i}` }));
    let pages = 0;
    proxy.onAnswer = async (method, url, body) => {
      if (method !== 'GET' || !url.startsWith('/issues.json') || ++pages !== 1) return;
      // After the first page: its first issue changes and moves to the end of the order.
      await rm.addNote(JSON.parse(body).issues[0].id, 'moved');
    };
    const listed = await adapter.listChanges(start.nextSince, signal);
    expect(pages).toBeGreaterThan(1);
    expect(listed.changes.map((c) => Number(c.id)).sort((a, b) => a - b)).toEqual(ids);
  });

  it('lists only the project’s own issues, not its subprojects’', async () => {
    const project = await rm.newProject();
    const sub = await rm.newProject({ parent: project });
    const adapter = adapterFor(project);
    await adapter.connect(signal);
    const start = await adapter.listChanges(undefined, signal);
    const own = await rm.createIssue(project, { subject: 'own' });
    await rm.createIssue(sub, { subject: 'of the subproject' }, rm.seed.admin_key);
    const listed = await adapter.listChanges(start.nextSince, signal);
    expect(listed.changes.map((c) => Number(c.id))).toEqual([own]);
  });

  it('without a Date header the cursor follows Redmine’s latest updated_on, never the gateway’s clock, and says so once', async () => {
    const project = await rm.newProject();
    const proxy = await startTicketSystemProxy(rm.url);
    proxy.stripDate = true;
    const ctx = recordingContext('desk');
    const adapter = new RedmineAdapter(RedmineConnectorConfig.parse({ url: proxy.url, api_key: rm.seed.gateway_key, project }), { logger: ctx.logger });
    await adapter.connect(signal);
    const empty = await adapter.listChanges(undefined, signal);
    expect(empty.nextSince).toBe('1970-01-01T00:00:00Z'); // no issue yet: everything from now is new
    const id = await rm.createIssue(project, { subject: 'one' });
    const updated = Date.parse((await rm.issue(id)).updated_on);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await adapter.listChanges(undefined, signal)).nextSince).toBe(redmineTime(updated - 60_000));
    const listed = await adapter.listChanges(empty.nextSince, signal);
    expect(listed.changes.map((c) => Number(c.id))).toEqual([id]);
    expect(listed.nextSince).toBe(redmineTime(updated - 60_000));
    expect(ctx.logs.filter((l) => l.msg.includes('without a Date header'))).toHaveLength(1);
    // A read without Redmine's clock is never settled: the ticket is read again when listed.
    expect((await adapter.readTicket(String(id), signal)).settled).toBe(false);
  });

  it('a read in the seconds right after the last change is not settled; a later one is', async () => {
    const project = await rm.newProject();
    const adapter = adapterFor(project);
    await adapter.connect(signal);
    const id = await rm.createIssue(project, { subject: 'fresh' });
    expect((await adapter.readTicket(String(id), signal)).settled).toBe(false);
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await adapter.readTicket(String(id), signal)).settled).toBe(true);
  });

  it('a private issue reads as private', async () => {
    const project = await rm.newProject();
    const adapter = adapterFor(project);
    await adapter.connect(signal);
    const id = await rm.createIssue(project, { subject: 'secret', is_private: true }, rm.seed.admin_key);
    expect((await adapter.readTicket(String(id), signal)).private).toBe(true);
  });

  it('a note on an issue that does not exist is refused with 404', async () => {
    const project = await rm.newProject();
    const err = await refusal(adapterFor(project).addNote('999999', { text: 'x', private: false }, signal));
    expect(err.status).toBe(404);
  });
});

describe('Redmine connector settings', () => {
  it('defaults, and strictness', () => {
    const parsed = RedmineConnectorConfig.parse({ url: 'https://rm.example.com/redmine/', api_key: 'k', project: 'support' });
    expect(parsed).toEqual({
      url: 'https://rm.example.com/redmine',
      api_key: 'k',
      project: 'support',
      poll_seconds: 30,
      notes: 'public',
      suggestions_as_private_notes: false,
      timeout_ms: 10_000,
      attachments: { keep: true, max_file_bytes: 10 * 1024 * 1024, max_note_bytes: 25 * 1024 * 1024 },
    });
    const bad = RedmineConnectorConfig.safeParse({ url: 'https://rm.example.com', api_key: '', project: 'Support Desk', notes: 'loud', extra: 1, attachments: { keep: 'yes', max_file_bytes: 0, max_mail_bytes: 1 } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['', 'api_key', 'attachments', 'attachments.keep', 'attachments.max_file_bytes', 'notes', 'project']);
    const limits = RedmineConnectorConfig.parse({ url: 'https://rm.example.com', api_key: 'k', project: 's', attachments: { max_file_bytes: 1_000 } }).attachments;
    expect(limits).toEqual({ keep: true, max_file_bytes: 1_000, max_note_bytes: 25 * 1024 * 1024 });
    expect(RedmineConnectorConfig.safeParse({ url: 'https://rm.example.com', api_key: 'k', project: 's', attachments: { max_note_bytes: 501 * 1024 * 1024 } }).success).toBe(false);
  });

  it('a project identifier may start with a digit (only all digits is refused); a tracker of digits is an id', () => {
    const base = { url: 'https://rm.example.com', api_key: 'k' };
    expect(RedmineConnectorConfig.parse({ ...base, project: '2024-support' }).project).toBe('2024-support');
    expect(RedmineConnectorConfig.safeParse({ ...base, project: '2024' }).success).toBe(false);
    expect(RedmineConnectorConfig.parse({ ...base, project: 's', tracker: '3' }).tracker).toBe(3);
    expect(RedmineConnectorConfig.parse({ ...base, project: 's', tracker: 'Support' }).tracker).toBe('Support');
    expect(RedmineConnectorConfig.safeParse({ ...base, project: 's', tracker: '0' }).error!.issues[0]!.path).toEqual(['tracker']);
  });
});
