/**
 * The Slack connector passes the contract suite every connector must pass
 * (`connectorContract`, threadgate/testing), against the Slack counterpart:
 * it starts (auth.test, the catch-up's first round) and stops cleanly, its
 * events route refuses empty, malformed and unsigned requests, its bot token
 * and signing secret stay out of the log, and an agent's reply delivered
 * twice (the second a retry, `attempt: 2`) is one message in the thread.
 */
import { describe, expect, it } from 'vitest';
import slackConnector from '../../../connectors/slack/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { connectorEntry, slack } from './support.ts';

describe('the Slack connector and the contract suite', () => {
  it('passes every check, delivery idempotent', { timeout: 60_000 }, async () => {
    const s = await slack();
    const root = await s.customerSays(s.support, 'A thread for the contract suite', { silently: true });
    const { name: _name, type: _type, ...settings } = connectorEntry(s, { catch_up_seconds: 60 });
    const replies = () => s.botMessages(s.support, root.ts).filter((m) => m.text.includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(slackConnector, {
        settings,
        pollForMs: 1_000,
        idempotent: { effects: replies, threadKey: `${s.support.id}/${root.ts}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(replies()).toBe(1);
  });
});
