/**
 * The suite every ticket adapter must pass (`threadgate/testing`): the
 * `TicketAdapter` rules of docs/ticket-seam.md, checked
 * against the real system through a counterpart (ticket-counterpart.ts) that
 * writes as its customers and staff. Run like `connectorContract`:
 * `for (const c of ticketAdapterContract(adapter, counterpart)) it(c.name, c.run)`.
 *
 * 1. `connect` learns the gateway's own user; refused credentials throw 401/403;
 * 2. `listChanges(undefined)` lists nothing and gives an ISO 8601 `nextSince`;
 * 3. `since`: a ticket opened, then changed, after a list's `nextSince` is in the next list, with another `updatedAt`;
 * 4. listing order: tickets in the order they last changed;
 * 5. a ticket reads with its subject, text, author, times and opening files;
 * 6. a customer's entry is public, not the gateway's own, with its files;
 * 7. a staff-only entry is private;
 * 8. a note the adapter writes is its own, public or private as asked, with its files;
 * 9. a file downloads byte for byte, and is refused past `maxBytes`;
 * 10. closing and reopening show in `closed` and `statusChange`;
 * 11. thread keys go both ways; sender ids are stable and tell people apart.
 *
 * Every check opens its own tickets (subjects `contract <run> …`) and looks
 * only at those, so the system may hold others.
 */
import type { TicketAdapter } from '../../../connectors/ticket/ticket-adapter.ts';
import type { ContractCheck } from './contract.ts';
import { fail } from './contract-support.ts';
import { contractFile, entriesOf, entryWith, isIso, ours, sleep, type TicketContractOptions, type TicketCounterpart } from './ticket-counterpart.ts';

export function ticketAdapterContract(adapter: TicketAdapter, counterpart: TicketCounterpart, options: TicketContractOptions = {}): ContractCheck[] {
  const prefix = options.name ?? 'ticket adapter';
  const signal = options.signal ?? new AbortController().signal;
  const run = Math.random().toString(36).slice(2, 8);
  const gap = counterpart.clockResolutionMs ?? 1_100;
  let n = 0;
  const open = (what: string, files?: ReturnType<typeof contractFile>[]) => {
    const subject = `contract ${run} ${++n} ${what}`;
    return counterpart.openTicket({ subject, text: `Text of ${subject}`, ...(files ? { files } : {}) }).then((id) => ({ id, subject }));
  };
  const read = (id: string) => adapter.readTicket(id, signal);
  const check = (name: string, body: () => Promise<void | { skipped: string }>): ContractCheck => ({ name: `${prefix}: ${name}`, run: body });

  return [
    check('connect learns the gateway’s own user; refused credentials throw 401 or 403', async () => {
      const self = await adapter.connect(signal);
      if (!self.id || !self.name) fail(`connect answered ${JSON.stringify(self)}: it needs the gateway user's id and name`);
      if (!adapter.system || !adapter.host || adapter.host.includes('@')) fail(`system "${adapter.system}" and host "${adapter.host}" must be set, the host without credentials`);
      if (!counterpart.refusedAdapter) return { skipped: 'the counterpart gives no adapter with refused credentials' };
      const refused = await counterpart.refusedAdapter().connect(signal).then(
        () => undefined,
        (err: unknown) => err as { status?: number; refused?: boolean; code?: string },
      );
      if (refused === undefined) fail('connect with refused credentials resolved');
      if (refused.status !== 401 && refused.status !== 403) fail(`connect with refused credentials threw ${refused.code ?? ''} status ${refused.status}, not 401 or 403`);
      if (refused.refused !== true) fail('the error of refused credentials does not say `refused` (throw a TicketSystemError with its status)');
    }),
    check('listChanges(undefined) lists nothing and gives an ISO 8601 nextSince', async () => {
      await open('before the start');
      const list = await adapter.listChanges(undefined, signal);
      if (list.changes.length > 0) fail(`"from now on" listed ${list.changes.length} ticket(s): it must list none`);
      if (!isIso(list.nextSince)) fail(`nextSince ${JSON.stringify(list.nextSince)} is not an ISO 8601 timestamp`);
    }),
    check('since: a ticket opened, then changed, after a list’s nextSince is listed again, with another updatedAt', async () => {
      const first = await adapter.listChanges(undefined, signal);
      await sleep(gap);
      const { id } = await open('since');
      const second = await adapter.listChanges(first.nextSince, signal);
      const opened = ours(second.changes, [id]);
      if (opened.length !== 1) fail(`a ticket opened after nextSince was listed ${opened.length} time(s) from it, not once`);
      if (!isIso(second.nextSince)) fail(`nextSince ${JSON.stringify(second.nextSince)} is not an ISO 8601 timestamp`);
      await sleep(gap);
      await counterpart.addEntry(id, { text: `A change after the list ${run}` });
      const third = ours((await adapter.listChanges(second.nextSince, signal)).changes, [id]);
      if (third.length !== 1) fail(`a ticket changed after nextSince was listed ${third.length} time(s) from it, not once`);
      if (third[0]!.updatedAt === opened[0]!.updatedAt) fail(`the change did not move updatedAt (${third[0]!.updatedAt})`);
    }),
    check('listing order: tickets in the order they last changed', async () => {
      const since = (await adapter.listChanges(undefined, signal)).nextSince;
      await sleep(gap);
      const a = await open('order A');
      await sleep(gap);
      const b = await open('order B');
      await sleep(gap);
      await counterpart.addEntry(a.id, { text: `A changes last ${run}` });
      const listed = ours((await adapter.listChanges(since, signal)).changes, [a.id, b.id]).map((c) => c.id);
      if (listed.join() !== [b.id, a.id].join()) fail(`listed ${JSON.stringify(listed)}; expected B (${b.id}) then A (${a.id}), each once`);
    }),
    check('a ticket reads with its subject, text, author, times and the files it was opened with', async () => {
      const file = contractFile('opening.pdf');
      const { id, subject } = await open('reading', [file]);
      const ticket = await read(id);
      if (ticket.id !== id) fail(`readTicket(${id}) answered ticket ${ticket.id}`);
      if (ticket.subject !== subject) fail(`subject ${JSON.stringify(ticket.subject)}, expected ${JSON.stringify(subject)}`);
      if (!ticket.description.includes(`Text of ${subject}`)) fail(`description ${JSON.stringify(ticket.description.slice(0, 200))} lacks the text it was opened with`);
      if (!/^https?:\/\//.test(ticket.webUrl)) fail(`webUrl ${JSON.stringify(ticket.webUrl)} is not an http(s) URL`);
      if (!isIso(ticket.createdAt)) fail(`createdAt ${JSON.stringify(ticket.createdAt)} is not an ISO 8601 timestamp`);
      if (ticket.closed || ticket.private) fail(`a new ticket reads closed=${ticket.closed} private=${ticket.private}`);
      if (!ticket.author.id || adapter.isOwnEntry({ ...emptyEntry, author: ticket.author })) fail('the opening’s author is empty or the gateway’s own user');
      const listed = ticket.attachments.find((a) => a.filename === file.filename);
      if (!listed) fail(`the opening's files are ${JSON.stringify(ticket.attachments.map((a) => a.filename))}; expected ${file.filename}`);
      if (listed.size !== file.content.length) fail(`${file.filename} is listed with ${listed.size} bytes, not ${file.content.length}`);
      if (ticket.entries.some((e) => e.attachments.some((a) => a.id === listed.id))) fail('the opening’s file is also listed under an entry');
      entriesOf(ticket);
    }),
    check('a customer’s entry is public, not the gateway’s own, and carries its files', async () => {
      const { id } = await open('entries');
      const file = contractFile('reply.pdf', 1_500);
      await counterpart.addEntry(id, { text: `First answer ${run}` });
      await counterpart.addEntry(id, { text: `Second answer ${run}`, files: [file] });
      const ticket = await read(id);
      const first = entryWith(ticket, `First answer ${run}`);
      const second = entryWith(ticket, `Second answer ${run}`);
      if (!(second.seq > first.seq)) fail('the later entry does not come after the earlier one');
      for (const e of [first, second]) if (e.private || adapter.isOwnEntry(e)) fail(`the customer's entry ${e.id} reads private=${e.private}, own=${adapter.isOwnEntry(e)}`);
      if (second.attachments.map((a) => a.filename).join() !== file.filename) fail(`the entry's files are ${JSON.stringify(second.attachments.map((a) => a.filename))}; expected [${file.filename}]`);
      if (first.attachments.length > 0) fail('an entry without files lists files');
    }),
    check('an entry only staff see is private', async () => {
      if (!counterpart.addPrivateEntry) return { skipped: 'the counterpart has no private entries' };
      const { id } = await open('private');
      await counterpart.addPrivateEntry(id, `Staff only ${run}`);
      const entry = entryWith(await read(id), `Staff only ${run}`);
      if (!entry.private) fail(`the staff-only entry ${entry.id} reads private=false: it would be posted to the chat`);
      if (adapter.isOwnEntry(entry)) fail('a staff member’s entry reads as the gateway’s own');
    }),
    check('a note the adapter writes is its own, public or private as asked, with its files', async () => {
      const { id } = await open('notes');
      const file = contractFile('answer.pdf', 1_200);
      const upload = await adapter.uploadAttachment(file, signal);
      const written = await adapter.addNote(id, { text: `Public note ${run}`, private: false, uploads: [upload] }, signal);
      const privateFiles = counterpart.privateNotesTakeFiles ? [await adapter.uploadAttachment(contractFile('internal.pdf', 900), signal)] : [];
      await adapter.addNote(id, { text: `Private note ${run}`, private: true, uploads: privateFiles }, signal);
      const ticket = await read(id);
      const pub = entryWith(ticket, `Public note ${run}`);
      const priv = entryWith(ticket, `Private note ${run}`);
      if (!adapter.isOwnEntry(pub) || !adapter.isOwnEntry(priv)) fail('a note the adapter wrote is not its own (isOwnEntry): it would be posted back');
      if (pub.private || !priv.private) fail(`notes read private=${pub.private} (asked public) and private=${priv.private} (asked private)`);
      if (written.entryId !== undefined && written.entryId !== pub.id) fail(`addNote answered entry ${written.entryId}, but the note is entry ${pub.id}`);
      if (!pub.attachments.some((a) => a.filename === file.filename)) fail(`the note's files are ${JSON.stringify(pub.attachments.map((a) => a.filename))}; expected ${file.filename}`);
      if (counterpart.privateNotesTakeFiles && !priv.attachments.some((a) => a.filename === 'internal.pdf')) fail('the private note lacks its file');
    }),
    check('a file downloads byte for byte and is refused past maxBytes', async () => {
      const file = contractFile('bytes.pdf', 3_000);
      const { id } = await open('download', [file]);
      const listed = (await read(id)).attachments.find((a) => a.filename === file.filename);
      if (!listed) fail('the opening lists no file to download');
      const bytes = await adapter.downloadAttachment(listed, file.content.length, signal);
      if (!Buffer.from(bytes).equals(file.content)) fail(`the download gave ${bytes.length} bytes that differ from the ${file.content.length} uploaded`);
      const refused = await adapter.downloadAttachment(listed, file.content.length - 1, signal).then(
        (b) => `${b.length} bytes`,
        (err: unknown) => (err as { code?: string }).code,
      );
      if (refused !== 'TG_TICKET_ATTACHMENT_TOO_LARGE') fail(`a download capped one byte short gave ${refused}, not TicketAttachmentTooLargeError`);
    }),
    check('closing and reopening show in closed and statusChange', async () => {
      const { id } = await open('status');
      await counterpart.close(id);
      const closed = await read(id);
      if (!closed.closed) fail('a closed ticket reads closed=false');
      if (entriesOf(closed).at(-1)?.statusChange !== 'closed') fail(`the closing entry reads statusChange=${entriesOf(closed).at(-1)?.statusChange}`);
      await sleep(gap);
      await counterpart.reopen(id);
      const reopened = await read(id);
      if (reopened.closed) fail('a reopened ticket reads closed=true');
      if (entriesOf(reopened).at(-1)?.statusChange !== 'reopened') fail(`the reopening entry reads statusChange=${entriesOf(reopened).at(-1)?.statusChange}`);
      if (reopened.updatedAt === closed.updatedAt) fail('reopening did not move updatedAt');
    }),
    check('thread keys go both ways; sender ids are stable and tell people apart', async () => {
      const { id } = await open('keys');
      const key = adapter.threadKey(id);
      if (adapter.ticketIdOf(key) !== id) fail(`ticketIdOf(threadKey(${id})) gave ${adapter.ticketIdOf(key)}`);
      if (!key.includes(adapter.host)) fail(`the thread key ${key} does not name the host ${adapter.host}: keys must be unique across systems`);
      for (const other of ['elsewhere.test/issues/1', '', `${key}/x`]) if (adapter.ticketIdOf(other) !== undefined) fail(`ticketIdOf(${JSON.stringify(other)}) gave ${adapter.ticketIdOf(other)}, not undefined`);
      const customer = (await read(id)).author;
      const self = await adapter.connect(signal);
      if (adapter.senderId(customer) !== adapter.senderId({ ...customer })) fail('senderId is not stable');
      if (adapter.senderId(customer) === adapter.senderId(self)) fail('the customer and the gateway user get the same senderId');
    }),
  ];
}

const emptyEntry = { id: '', seq: 0, createdAt: '', text: '', private: false, statusChange: null, attachments: [] };
