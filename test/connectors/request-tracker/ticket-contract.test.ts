/**
 * Request Tracker's adapter passes the ticket-adapter contract
 * (`ticketAdapterContract`, threadgate/testing) against the run's real RT 5:
 * the customer opens tickets and corresponds with its own token, the agent
 * comments, resolves and reopens, and the adapter reads, writes and
 * downloads as the gateway's user. A comment's files stay with the comment
 * (staff only), so private notes take files here.
 */
import { describe, expect, it } from 'vitest';
import { RequestTrackerConnectorConfig } from '../../../connectors/request-tracker/config.ts';
import { RequestTrackerAdapter } from '../../../connectors/request-tracker/rt-adapter.ts';
import { ticketAdapterContract, type CounterpartFile, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { requestTracker, type TestRequestTracker } from '../../support/request-tracker.ts';

// The checks are named when the file is collected: RT is started (or reached) first.
const rt: TestRequestTracker = await requestTracker();
const queue = await rt.newQueue();

const adapterWith = (token: string) => new RequestTrackerAdapter(RequestTrackerConnectorConfig.parse({ url: rt.url, token, queue }));
const files = (list: readonly CounterpartFile[] = []) => list.map((f) => ({ filename: f.filename, contentType: f.contentType, bytes: f.content }));

const counterpart: TicketCounterpart = {
  openTicket: async ({ subject, text, files: list }) => String(await rt.createTicket(queue, { subject, content: text, attachments: files(list) })),
  addEntry: async (id, { text, files: list }) => void (await rt.correspond(Number(id), text, { attachments: files(list) })),
  addPrivateEntry: async (id, text) => void (await rt.comment(Number(id), text)),
  close: (id) => rt.setStatus(Number(id), 'resolved'),
  reopen: (id) => rt.setStatus(Number(id), 'open'),
  refusedAdapter: () => adapterWith(`1-${rt.seed.gateway_id}-${'0'.repeat(32)}`),
  privateNotesTakeFiles: true,
};

describe('the Request Tracker adapter and the ticket-adapter contract', () => {
  const checks = ticketAdapterContract(adapterWith(rt.seed.gateway_token), counterpart, { name: 'RT' });

  it('has a check for every rule', () => expect(checks.length).toBe(11));
  for (const check of checks) {
    it(check.name, { timeout: 60_000 }, async () => {
      expect(await check.run()).toBeUndefined();
    });
  }
});
