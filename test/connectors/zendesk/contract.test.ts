/**
 * The bundled Zendesk connector passes the contract suite every connector
 * must pass (`connectorContract`, threadgate/testing), against the Zendesk
 * counterpart: its poller starts and stops cleanly, its API token (and
 * webhook secret) stay out of the log, its webhook route refuses unsigned
 * requests, and an agent's reply delivered twice (the second a retry) is one
 * comment — it looks for its own before writing again.
 */
import { describe, expect, it } from 'vitest';
import zendeskConnector from '../../../connectors/zendesk/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { connectorEntry, gatewayComments, zendesk } from './support.ts';

describe('the Zendesk connector and the contract suite', () => {
  it('passes every check, delivery idempotent', { timeout: 60_000 }, async () => {
    const desk = await zendesk();
    const id = await desk.openTicket({ subject: 'The contract', text: 'A ticket for the contract suite' });
    const { name: _name, type: _type, ...settings } = connectorEntry(desk, { webhook_secret: 'contract-webhook-secret-1' });
    const replies = () => gatewayComments(desk, id).filter((c) => c.body.includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(zendeskConnector, {
        settings,
        pollForMs: 1_500,
        idempotent: { effects: replies, threadKey: `${desk.host}/tickets/${id}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(replies()).toBe(1);
  });
});
