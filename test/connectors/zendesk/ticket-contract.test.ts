/**
 * Zendesk's adapter passes the ticket-adapter contract
 * (`ticketAdapterContract`, threadgate/testing) against the Zendesk
 * counterpart (test/support/zendesk/): the agent opens tickets for the
 * customer and comments as the customer, writes internal notes, solves and
 * reopens, and the adapter reads, writes and downloads as the gateway's
 * admin. The export's minute passes on the counterpart's clock after each
 * write. An internal note's files stay with the note (agents only), so
 * private notes take files here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ZendeskConnectorConfig } from '../../../connectors/zendesk/config.ts';
import { ZendeskAdapter } from '../../../connectors/zendesk/zendesk-adapter.ts';
import { ticketAdapterContract, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { startZendesk } from '../../support/zendesk/zendesk.ts';

const desk = await startZendesk();
afterAll(() => desk.close());

const adapterWith = (token: string) => new ZendeskAdapter(ZendeskConnectorConfig.parse({ url: desk.url, email: desk.gateway.email, api_token: token }));

const counterpart: TicketCounterpart = {
  openTicket: async ({ subject, text, files }) => String(await desk.openTicket({ subject, text, ...(files ? { files } : {}) })),
  addEntry: async (id, { text, files }) => void (await desk.comment(Number(id), text, files ? { files } : {})),
  addPrivateEntry: async (id, text) => void (await desk.internalNote(Number(id), text)),
  close: (id) => desk.setStatus(Number(id), 'solved'),
  reopen: (id) => desk.setStatus(Number(id), 'open'),
  refusedAdapter: () => adapterWith('f'.repeat(40)),
  privateNotesTakeFiles: true,
};

describe('the Zendesk adapter and the ticket-adapter contract', () => {
  const checks = ticketAdapterContract(adapterWith(desk.gateway.apiToken), counterpart, { name: 'Zendesk' });

  it('has a check for every rule', () => expect(checks.length).toBe(11));
  for (const check of checks) {
    it(check.name, { timeout: 60_000 }, async () => {
      expect(await check.run()).toBeUndefined();
    });
  }
});
