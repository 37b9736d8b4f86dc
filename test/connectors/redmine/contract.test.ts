/**
 * The bundled Redmine connector passes the contract suite every connector
 * must pass (`connectorContract`, threadgate/testing), against the run's real
 * Redmine: its poller starts and stops cleanly, its API key stays out of the
 * log, and an agent's note delivered twice (the second a retry) is written
 * once — it looks for its own note before writing again.
 */
import { describe, expect, it } from 'vitest';
import redmineConnector from '../../../connectors/redmine/index.ts';
import { connectorContract, runContract } from '../../../src/connector/testing/index.ts';
import { redmine } from '../../support/redmine.ts';
import { connectorEntry } from './support.ts';

describe('the Redmine connector and the contract suite', () => {
  it('passes every check, delivery idempotent', async () => {
    const rm = await redmine();
    const project = await rm.newProject();
    const issue = await rm.createIssue(project, { subject: 'The contract', description: 'A ticket for the contract suite' });
    const { name: _name, type: _type, ...settings } = connectorEntry(rm, project);
    const notes = async () => (await rm.journals(issue)).filter((j) => (j.notes ?? '').includes('The contract delivers this twice')).length;
    const results = await runContract(
      connectorContract(redmineConnector, {
        settings,
        pollForMs: 1_500,
        idempotent: { effects: notes, threadKey: `${new URL(rm.url).host}/issues/${issue}` },
      }),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.filter((r) => r.skipped !== undefined)).toEqual([]);
    expect(await notes()).toBe(1);
  });
});
