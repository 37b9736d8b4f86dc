/**
 * The bundled e-mail connector passes the contract suite every connector must
 * pass (`connectorContract`, threadgate/testing), against the run's real
 * Dovecot and OpenSMTPD: its mailbox watcher starts and stops cleanly, and
 * no password reaches its log. Its delivery needs a thread made by a real
 * mail (the customer's address), so idempotent delivery is tested in
 * sent-copies and end-to-end, not here.
 */
import { describe, expect, it } from 'vitest';
import emailConnector from '../../../connectors/email/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { mailServers } from '../../support/mail-servers.ts';
import { emailSettings } from './settings.ts';

describe('the e-mail connector and the contract suite', () => {
  it('passes every check', async () => {
    const support = await mailServers().addUser('contract');
    const results = await runContract(connectorContract(emailConnector, { settings: emailSettings(support), pollForMs: 1_000 }));
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped === undefined).map((r) => r.name.split(' ')[0])).toEqual(['its', 'create,', 'each', 'health', 'no']);
  });
});
