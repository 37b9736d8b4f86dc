/**
 * The Zendesk connector's settings: problems are found when the settings are
 * read, each naming its key and none repeating a credential; settings the
 * account refuses (a wrong token, an agent that is not an admin, a brand
 * that does not exist) leave the gateway running and the connector
 * unhealthy, saying why, the token never logged.
 */
import { describe, expect, it } from 'vitest';
import { ZendeskConnectorConfig } from '../../../connectors/zendesk/config.ts';
import { loadConnectors } from '../../../src/connector/registry.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, health, helpDesk, zendesk } from './support.ts';

const keys = { subdomain: 'acme', email: 'gateway@acme.example', api_token: 'secret-token-1' };
const entry = { name: CONNECTOR, type: 'zendesk', ...keys };

describe('Zendesk connector, settings', () => {
  it('subdomain names the account’s address; ids may be numbers or strings of digits; defaults as documented', () => {
    const config = ZendeskConnectorConfig.parse({ ...keys, subdomain: 'Acme', brand: '360000001', group: 360100001 });
    expect(config).toMatchObject({ root: 'https://acme.zendesk.com', brand: 360000001, group: 360100001, poll_seconds: 30, replies: 'public', suggestions_as_internal_notes: false });
    expect(ZendeskConnectorConfig.parse({ ...keys, subdomain: undefined, url: 'https://help.acme.example/' }).root).toBe('https://help.acme.example');
  });

  it('each problem is found when the settings are read, names its key and repeats no credential', async () => {
    const { problems } = await loadConnectors(
      [
        { ...entry, url: 'https://acme.zendesk.com' },
        { ...entry, name: 'b', subdomain: undefined },
        { ...entry, name: 'c', subdomain: 'acme.zendesk.com' },
        { ...entry, name: 'd', email: 'not-an-address' },
        { ...entry, name: 'e', api_token: '' },
        { ...entry, name: 'f', brand: 'Acme Labs' },
        { ...entry, name: 'g', subdomain: undefined, url: 'https://gateway:secret-pw-1@acme.zendesk.com' },
        { ...entry, name: 'h', replies: 'private' },
        { ...entry, name: 'i', webhook_secret: 'short' },
        { ...entry, name: 'j', queue: 'General' },
      ],
      tempDir(),
    );
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      [['connectors', 0, 'subdomain'], 'give either subdomain or url, not both'],
      [['connectors', 1, 'subdomain'], 'expected subdomain (the "acme" of acme.zendesk.com) or url'],
      [['connectors', 2, 'subdomain'], 'expected the Zendesk subdomain alone (the "acme" of acme.zendesk.com)'],
      [['connectors', 3, 'email'], 'expected the e-mail address of the Zendesk user the gateway acts as'],
      [['connectors', 4, 'api_token'], 'expected a Zendesk API token'],
      [['connectors', 5, 'brand'], 'expected the brand id (a positive number, as Admin Center shows it), not a name'],
      [['connectors', 6, 'url'], 'must not carry user:password@ (give email and api_token as its own keys)'],
      [['connectors', 7, 'replies'], expect.stringContaining('"public"')],
      [['connectors', 8, 'webhook_secret'], 'expected the webhook’s signing secret (as Zendesk shows it)'],
      [['connectors', 9, 'queue'], 'unknown key'],
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/secret-token-1|secret-pw-1|short/);
  });

  it('a refused API token: the gateway runs, the connector is unhealthy with Zendesk’s 401, the token never logged', async () => {
    const desk = await zendesk();
    const logLines: string[] = [];
    const token = 'f'.repeat(40);
    const tg = await helpDesk(desk, { extra: { api_token: token }, noWait: true, logLines });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two start-up attempts');
    const h = await health(tg);
    expect([h.ok, h.details.connected]).toEqual([false, false]);
    expect(h.details.last_error).toMatch(/Zendesk at .* answered GET \/api\/v2\/users\/me\.json with 401 \(the email and api_token were refused.*: Couldn't authenticate you$/);
    expect((await tg.call('GET', '/healthz')).status).toBe(200);
    expect(logLines.join('\n')).not.toContain(token);
    expect(logLines.join('\n')).not.toContain(Buffer.from(`${desk.gateway.email}/token:${token}`).toString('base64'));
  });

  it('an agent that is not an admin, or a brand the account lacks: unhealthy, saying which', async () => {
    const desk = await zendesk();
    const agent = await helpDesk(desk, { extra: { email: desk.staff.email, api_token: desk.staff.apiToken! }, noWait: true });
    await until(async () => (await health(agent)).details.last_error != null, ARRIVES_MS, 'the role error');
    expect((await health(agent)).details.last_error).toContain('the incremental ticket export is for admins only');

    const branded = await helpDesk(desk, { extra: { brand: 42 }, noWait: true });
    await until(async () => (await health(branded)).details.last_error != null, ARRIVES_MS, 'the brand error');
    expect((await health(branded)).details.last_error).toContain('has no brand 42 (404)');
  });
});
