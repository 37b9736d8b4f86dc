/**
 * The bundled Zammad connector passes the contract suite every connector must
 * pass (`connectorContract`, threadgate/testing), against the Zammad
 * counterpart: its poller starts and stops cleanly, its token stays out of
 * the log, and an agent's reply delivered twice (the second a retry) is one
 * article — it looks for its own before writing again.
 */
import { afterAll, describe, expect, it } from 'vitest';
import zammadConnector from '../../../connectors/zammad/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { startZammad } from '../../support/zammad/zammad-counterpart.ts';
import { connectorEntry } from './support.ts';

const zammad = await startZammad();
afterAll(() => zammad.close());

describe('the Zammad connector and the contract suite', () => {
  it('passes every check, delivery idempotent', { timeout: 30_000 }, async () => {
    const group = await zammad.newGroup();
    const id = await zammad.customer.openTicket(group, { title: 'The contract', body: 'A ticket for the contract suite' });
    const { name: _name, type: _type, ...settings } = connectorEntry(zammad, group);
    const replies = async () => (await zammad.staff.articles(id)).filter((a) => a.created_by_id === zammad.gateway.user.id && a.body.includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(zammadConnector, {
        settings,
        pollForMs: 1_500,
        idempotent: { effects: replies, threadKey: `${new URL(zammad.url).host}/ticket/${id}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(await replies()).toBe(1);
  });
});
