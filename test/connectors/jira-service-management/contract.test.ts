/**
 * The bundled Jira Service Management connector passes the contract suite
 * every connector must pass (`connectorContract`, threadgate/testing),
 * against the counterpart of a Jira Cloud site: its poller starts and stops
 * cleanly, its API token stays out of the log, and an agent's reply
 * delivered twice (the second a retry) is one public comment — it looks for
 * its own before writing again.
 */
import { describe, expect, it } from 'vitest';
import jsmConnector from '../../../connectors/jira-service-management/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { connectorEntry, jiraSite } from './support.ts';

describe('the Jira Service Management connector and the contract suite', () => {
  it('passes every check, delivery idempotent', { timeout: 60_000 }, async () => {
    const jsm = await jiraSite();
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'The contract', description: 'A request for the contract suite' });
    const { name: _name, type: _type, ...settings } = connectorEntry(jsm);
    const replies = () => jsm.gatewayComments(id).filter((c) => c.public && c.body.includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(jsmConnector, {
        settings,
        pollForMs: 1_500,
        idempotent: { effects: replies, threadKey: `${new URL(jsm.url).host}/issue/${id}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(replies()).toBe(1);
  });
});
