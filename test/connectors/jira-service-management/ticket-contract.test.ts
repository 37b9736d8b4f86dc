/**
 * The Jira Service Management adapter passes the ticket-adapter contract
 * (`ticketAdapterContract`, threadgate/testing) against the counterpart of
 * Jira Cloud (test/support/jira-service-management/): the customer raises
 * requests and comments with her own API token, another agent writes
 * internal comments, resolves and reopens, and the adapter reads, writes and
 * downloads as the gateway's account, whose profile zone is Sydney (JQL
 * dates are read in it). Internal comments take files (internal
 * attachments), so private notes take files here. Search pages are kept
 * small and the expanded lists of a request short, so paging is exercised.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JsmConnectorConfig } from '../../../connectors/jira-service-management/config.ts';
import { JsmAdapter } from '../../../connectors/jira-service-management/jsm-adapter.ts';
import { ticketAdapterContract, type CounterpartFile, type TicketCounterpart } from '../../../src/connector/testing/index.ts';
import { startJsm } from '../../support/jira-service-management/jsm-counterpart.ts';

const jsm = await startJsm({ knobs: { expandPage: 2, searchPageCap: 3 } });
afterAll(() => jsm.close());

const adapterWith = (apiToken: string) =>
  new JsmAdapter(JsmConnectorConfig.parse({ url: jsm.url, email: jsm.gateway.email, api_token: apiToken, service_desk: jsm.desk.projectKey }), { searchPageSize: 3, listPageSize: 2 });
const files = (list: readonly CounterpartFile[] = []) => list.map((f) => ({ filename: f.filename, contentType: f.contentType, content: f.content }));

const counterpart: TicketCounterpart = {
  openTicket: async ({ subject, text, files: list }) => (await jsm.openRequest(jsm.customer, { summary: subject, description: text, files: files(list) })).id,
  addEntry: (id, { text, files: list }) => jsm.comment(jsm.customer, id, text, { files: files(list) }),
  addPrivateEntry: (id, text) => jsm.comment(jsm.agent, id, text, { internal: true }),
  close: (id) => jsm.transition(jsm.agent, id, 'resolve'),
  reopen: (id) => jsm.transition(jsm.agent, id, 'reopen'),
  refusedAdapter: () => adapterWith('ATATT-not-the-token'),
  // `updated` has milliseconds, and the counterpart's clock never repeats one.
  clockResolutionMs: 20,
  privateNotesTakeFiles: true,
};

describe('the Jira Service Management adapter and the ticket-adapter contract', () => {
  const checks = ticketAdapterContract(adapterWith(jsm.gateway.apiToken), counterpart, { name: 'JSM' });

  it('has a check for every rule', () => expect(checks.length).toBe(11));
  for (const check of checks) {
    it(check.name, async () => {
      expect(await check.run()).toBeUndefined();
    });
  }
});
