/**
 * The bundled Request Tracker connector passes the contract suite every
 * connector must pass (`connectorContract`, threadgate/testing), against the
 * run's real RT 5: its poller starts and stops cleanly, its token stays out
 * of the log, and an agent's reply delivered twice (the second a retry) is
 * one correspondence — it looks for its own before writing again.
 */
import { describe, expect, it } from 'vitest';
import requestTrackerConnector from '../../../connectors/request-tracker/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { requestTracker } from '../../support/request-tracker.ts';
import { connectorEntry } from './support.ts';

describe('the Request Tracker connector and the contract suite', () => {
  it('passes every check, delivery idempotent', { timeout: 60_000 }, async () => {
    const rt = await requestTracker();
    const queue = await rt.newQueue();
    const id = await rt.createTicket(queue, { subject: 'The contract', content: 'A ticket for the contract suite' });
    const { name: _name, type: _type, ...settings } = connectorEntry(rt, queue);
    const replies = async () => (await rt.history(id)).filter((t) => t.type === 'Correspond' && t.text.includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(requestTrackerConnector, {
        settings,
        pollForMs: 1_500,
        idempotent: { effects: replies, threadKey: `${new URL(rt.url).host}/ticket/${id}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(await replies()).toBe(1);
  });
});
