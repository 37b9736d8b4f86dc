/**
 * Zammad's adapter passes the ticket-adapter contract (`ticketAdapterContract`,
 * threadgate/testing) against the Zammad counterpart (test/support/zammad/):
 * the customer opens tickets on the web and answers with its own token, a
 * staff agent writes internal notes, closes and reopens, and the adapter
 * reads, writes and downloads as the gateway's agent. An internal article's
 * files stay with it (staff only), so private notes take files here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ZammadConnectorConfig } from '../../../connectors/zammad/config.ts';
import { ZammadAdapter } from '../../../connectors/zammad/zammad-adapter.ts';
import { ticketAdapterContract, type CounterpartFile, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { startZammad } from '../../support/zammad/zammad-counterpart.ts';

const zammad = await startZammad();
const group = await zammad.newGroup();
afterAll(() => zammad.close());

const adapterWith = (token: string) => new ZammadAdapter(ZammadConnectorConfig.parse({ url: zammad.url, token, group }));
const files = (list: readonly CounterpartFile[] = []) => list.map((f) => ({ filename: f.filename, contentType: f.contentType, bytes: f.content }));

const counterpart: TicketCounterpart = {
  openTicket: async ({ subject, text, files: list }) => String(await zammad.customer.openTicket(group, { title: subject, body: text, files: files(list) })),
  addEntry: async (id, { text, files: list }) => void (await zammad.customer.reply(Number(id), text, { files: files(list) })),
  addPrivateEntry: async (id, text) => void (await zammad.staff.internalNote(Number(id), text)),
  close: (id) => zammad.staff.setState(Number(id), 'closed'),
  reopen: (id) => zammad.staff.setState(Number(id), 'open'),
  refusedAdapter: () => adapterWith('not-a-token-zammad-knows'),
  // Zammad stamps changes to the millisecond.
  clockResolutionMs: 20,
  privateNotesTakeFiles: true,
};

describe('the Zammad adapter and the ticket-adapter contract', () => {
  const checks = ticketAdapterContract(adapterWith(zammad.gateway.token), counterpart, { name: 'Zammad' });

  it('has a check for every rule', () => expect(checks.length).toBe(11));
  for (const check of checks) {
    it(check.name, async () => {
      expect(await check.run()).toBeUndefined();
    });
  }
});
