/**
 * The Redmine connector in a real gateway, against a real Redmine (Debian's,
 * SQLite, on loopback) and the sandbox as the platform: tickets become chats,
 * public notes join them, private notes do not, agent replies come back as
 * notes, closing the ticket ends the session, and reopening starts another.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../support/wait.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';
import { chatTexts, openStoppedStore } from '../../support/gateway.ts';
import { ARRIVES_MS, CONNECTOR, chatOfIssue, chatsOf, health, helpDesk, threadOf } from './support.ts';

let rm: TestRedmine;
beforeAll(async () => {
  rm = await redmine();
}, 120_000);

const ownNotes = async (issueId: number) => (await rm.journals(issueId)).filter((j) => j.user.id === rm.seed.gateway_id && (j.notes ?? '') !== '');

describe('Redmine connector, end to end', () => {
  it('a ticket becomes a chat; a public note joins it, a private one does not; an agent reply becomes a note', async () => {
    const { tg, project } = await helpDesk(rm);
    const issue = await rm.createIssue(project, { subject: 'Printer on fire', description: 'Smoke everywhere.\nPlease help.' });
    const thread = await chatOfIssue(tg, rm, issue);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 1, ARRIVES_MS, 'the opening message');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.']);
    expect(thread.key).toBe(`${new URL(rm.url).host}/issues/${issue}`);
    const visitor = (await tg.sandbox.call('GET', `/_sandbox/chats/${thread.chatId}`)).body.visitor;
    expect(visitor.variables).toMatchObject({ name: 'Ann Customer', ticket_url: `${rm.url}/issues/${issue}` });

    await rm.addNote(issue, 'Internal: the printer is out of warranty.', { private: true });
    await rm.addNote(issue, 'It is still smoking.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the public note');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Printer on fire\n\nSmoke everywhere.\nPlease help.', 'It is still smoking.']);
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_NOTE']);

    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Unplug it, please.' });
    await until(async () => (await ownNotes(issue)).length === 1, ARRIVES_MS, 'the agent reply as a note');
    const [note] = await ownNotes(issue);
    expect(note!.notes).toMatch(/^\*\*.+\*\* \(via chat, ref [0-9a-f]{12}\):\n\nUnplug it, please\.$/);
    expect(note!.private_notes).toBe(false);
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).delivered === 1, ARRIVES_MS, 'the delivery record');
    const row = (await tg.gateway.store.read.sql.get(`select external_id from deliveries where status = 'delivered'`)) as { external_id: string };
    expect(row.external_id).toBe(`journal-${note!.id}`);

    // The gateway's own note is not posted back, while a later customer note is.
    await rm.addNote(issue, 'Done, thanks.');
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 3, ARRIVES_MS, 'the answer');
    expect((await chatTexts(tg, thread.chatId)).at(-1)).toBe('Done, thanks.');
    expect((await health(tg)).ok).toBe(true);
  });

  it('closing the ticket ends the session; reopening it and a new note start a new session of the same thread', async () => {
    const { tg, project } = await helpDesk(rm);
    const issue = await rm.createIssue(project, { subject: 'VPN down', description: 'Cannot connect.' });
    const thread = await chatOfIssue(tg, rm, issue);
    await rm.setStatus(issue, rm.seed.closed_status_id);
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');

    await rm.setStatus(issue, rm.seed.open_status_id);
    await rm.addNote(issue, 'It is down again.');
    await until(async () => (await chatsOf(tg, thread.threadId)).length === 2, ARRIVES_MS, 'a second chat');
    const [latest, first] = await chatsOf(tg, thread.threadId);
    expect(first!.ended).toBe(true);
    expect(latest!.ended).toBe(false);
    await until(async () => (await chatTexts(tg, latest!.id)).length === 1, ARRIVES_MS, 'the note in the new chat');
    expect(await chatTexts(tg, latest!.id)).toEqual(['It is down again.']);
    expect(await chatTexts(tg, first!.id)).toEqual(['VPN down\n\nCannot connect.']);
  });

  it('with notes: private, agent replies are private notes; suggestions become private notes when asked', async () => {
    const { tg, project } = await helpDesk(rm, { extra: { notes: 'private', suggestions_as_private_notes: true } });
    const issue = await rm.createIssue(project, { subject: 'Refund', description: 'Order 77.' });
    const thread = await chatOfIssue(tg, rm, issue);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/reply_suggestions`, { suggestion: 'Offer a voucher.' });
    await until(async () => (await ownNotes(issue)).length === 1, ARRIVES_MS, 'the suggestion note');
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Refund issued.' });
    await until(async () => (await ownNotes(issue)).length === 2, ARRIVES_MS, 'the reply note');
    const notes = await ownNotes(issue);
    expect(notes.map((n) => n.private_notes)).toEqual([true, true]);
    expect(notes[0]!.notes).toContain('Offer a voucher.');
    expect(notes[1]!.notes).toMatch(/\(via chat, ref [0-9a-f]{12}\):\n\nRefund issued\.$/);
  });

  it('with notes: private and a gateway user that may not mark notes private, the reply is dead-lettered, never written public', async () => {
    const project = await rm.newProject({ gatewayRoleId: rm.seed.reporter_role_id });
    const { tg } = await helpDesk(rm, { project, extra: { notes: 'private' } });
    const issue = await rm.createIssue(project, { subject: 'Secret reply', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'For staff eyes.' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).dead === 1, ARRIVES_MS, 'the dead letter');
    const row = (await tg.gateway.store.read.sql.get(`select error from deliveries where status = 'dead'`)) as { error: string };
    expect(row.error).toContain('Mark notes as private');
    expect(await ownNotes(issue)).toEqual([]);
  });

  it('a ticket older than the gateway’s cursor is taken up from its present: its history is not replayed', { timeout: 60_000 }, async () => {
    const first = await helpDesk(rm);
    await first.tg.gateway.close();
    const issue = await rm.createIssue(first.project, { subject: 'Old printer', description: 'It jams.' });
    await rm.addNote(issue, 'Old customer note.');
    await rm.addNote(issue, 'Old staff note.', { key: rm.seed.admin_key });
    await rm.addNote(issue, 'Old private note.', { private: true });
    await rm.setStatus(issue, rm.seed.closed_status_id);
    await rm.setStatus(issue, rm.seed.open_status_id);
    await rm.setStatus(issue, rm.seed.closed_status_id);
    await new Promise((r) => setTimeout(r, 1_100));
    // As if the gateway had been watching since now (the issue is older than its cursor).
    const stopped = await openStoppedStore(first.tg);
    const since = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await stopped.write((tx) => tx.sql.run(`update connector_state set value = ? where connector = ? and key = 'cursor'`, [JSON.stringify({ since }), CONNECTOR]));
    await stopped.close();

    const { tg } = await helpDesk(rm, { project: first.project, after: first.tg });
    await rm.addNote(issue, 'It jams again, although closed.');
    const thread = await chatOfIssue(tg, rm, issue);
    await until(async () => (await chatTexts(tg, thread.chatId)).length === 2, ARRIVES_MS, 'the opening and the new note');
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the closed state, applied once');
    await until(async () => (await health(tg)).details.polls >= 3, ARRIVES_MS, 'more polls');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Old printer\n\nIt jams.', 'It jams again, although closed.']);
    expect(await chatsOf(tg, thread.threadId)).toHaveLength(1);
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR))).toEqual([]);
  });

  it('an issue created closed becomes a chat that ends; a private issue posts nothing and is recorded as skipped', async () => {
    const { tg, project } = await helpDesk(rm);
    const secret = await rm.createIssue(project, { subject: 'Secret', description: 'x', is_private: true }, rm.seed.admin_key);
    await rm.addNote(secret, 'Also secret.', { key: rm.seed.admin_key });
    const done = await rm.createIssue(project, { subject: 'Done already', description: 'fyi', status_id: rm.seed.closed_status_id }, rm.seed.admin_key);
    expect((await rm.issue(done)).status.id).toBe(rm.seed.closed_status_id);
    const thread = await chatOfIssue(tg, rm, done);
    await until(async () => (await chatsOf(tg, thread.threadId))[0]?.ended === true, ARRIVES_MS, 'the session to end');
    expect(await chatTexts(tg, thread.chatId)).toEqual(['Done already\n\nfyi']);
    expect((await threadOf(tg, rm, secret))).toBeUndefined();
    expect((await tg.gateway.store.read.skipped.list(CONNECTOR)).map((s) => s.code)).toEqual(['TG_TICKET_PRIVATE_ISSUE', 'TG_TICKET_PRIVATE_ISSUE']);
  });

  it('an agent reply to a ticket deleted in Redmine is dead-lettered with Redmine’s answer', async () => {
    const { tg, project } = await helpDesk(rm);
    const issue = await rm.createIssue(project, { subject: 'Gone soon', description: 'x' });
    const thread = await chatOfIssue(tg, rm, issue);
    expect((await rm.api('DELETE', `/issues/${issue}.json`)).status).toBe(204);
    await tg.sandbox.call('POST', `/_sandbox/chats/${thread.chatId}/agent_messages`, { text: 'Hello?' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus(CONNECTOR)).dead === 1, ARRIVES_MS, 'the dead letter');
    const row = (await tg.gateway.store.read.sql.get(`select error from deliveries where status = 'dead'`)) as { error: string };
    expect(row.error).toContain('404');
    expect(row.error).toContain(`ticket ${issue}`);
  });
});
