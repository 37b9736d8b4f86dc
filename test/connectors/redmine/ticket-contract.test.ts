/**
 * Redmine's adapter passes the ticket-adapter contract (`ticketAdapterContract`,
 * threadgate/testing) against the run's real Redmine: a customer opens issues
 * and writes notes with its own API key, the admin writes private notes and
 * closes and reopens, and the adapter reads, writes and downloads as the
 * gateway's user.
 */
import { describe, expect, it } from 'vitest';
import { RedmineConnectorConfig } from '../../../connectors/redmine/config.ts';
import { RedmineAdapter } from '../../../connectors/redmine/redmine-adapter.ts';
import { ticketAdapterContract, type CounterpartFile, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { redmine, type TestRedmine } from '../../support/redmine.ts';

// The checks are named when the file is collected: Redmine is started (or reached) first.
const rm: TestRedmine = await redmine();
const project = await rm.newProject();

const adapterWith = (apiKey: string) => new RedmineAdapter(RedmineConnectorConfig.parse({ url: rm.url, api_key: apiKey, project }));
const uploads = (files: readonly CounterpartFile[] = []) => Promise.all(files.map((f) => rm.upload(f.filename, f.content, f.contentType)));

const counterpart: TicketCounterpart = {
  openTicket: async ({ subject, text, files }) => String(await rm.createIssue(project, { subject, description: text, uploads: await uploads(files) })),
  addEntry: async (id, { text, files }) => rm.addNote(Number(id), text, { uploads: await uploads(files) }),
  addPrivateEntry: (id, text) => rm.addNote(Number(id), text, { private: true }),
  close: (id) => rm.setStatus(Number(id), rm.seed.closed_status_id),
  reopen: (id) => rm.setStatus(Number(id), rm.seed.open_status_id),
  refusedAdapter: () => adapterWith('0'.repeat(40)),
};

describe('the Redmine adapter and the ticket-adapter contract', () => {
  const checks = ticketAdapterContract(adapterWith(rm.seed.gateway_key), counterpart, { name: 'Redmine' });

  it('has a check for every rule', () => expect(checks.length).toBe(11));
  for (const check of checks) {
    it(check.name, { timeout: 30_000 }, async () => {
      expect(await check.run()).toBeUndefined();
    });
  }
});
