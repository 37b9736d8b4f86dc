/**
 * The Jira Service Management connector's settings: every bad key is refused
 * when the settings are read, naming the key and never repeating the API
 * token; a refused token or a service desk the account cannot see leave the
 * gateway running and the connector unhealthy, saying why, the token never
 * logged; the service desk may be named by its id or its project key.
 */
import { describe, expect, it } from 'vitest';
import { JsmConnectorConfig } from '../../../connectors/jira-service-management/config.ts';
import { JsmAdapter } from '../../../connectors/jira-service-management/jsm-adapter.ts';
import { loadConnectors } from '../../../src/connector/registry.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/wait.ts';
import { ARRIVES_MS, CONNECTOR, health, helpDesk, jiraSite } from './support.ts';

const entry = { name: CONNECTOR, type: 'jira-service-management', url: 'https://example.atlassian.net', email: 'gw@example.com', api_token: 'secret-token-1', service_desk: 'HELP' };

describe('Jira Service Management connector, settings', () => {
  it('bad keys are refused when the settings are read, each named, the token never repeated', async () => {
    const { api_token: _, ...noToken } = entry;
    const { service_desk: __, ...noDesk } = entry;
    const { problems } = await loadConnectors(
      [
        { ...noToken, name: 'a' },
        { ...entry, name: 'b', email: 'not an address' },
        { ...noDesk, name: 'c' },
        { ...entry, name: 'd', service_desk: 'HELP-1' },
        { ...entry, name: 'e', url: 'https://gw%40example.com:secret-token-1@example.atlassian.net' },
        { ...entry, name: 'f', replies: 'loud' },
        { ...entry, name: 'g', token: 'secret-token-1' },
        { ...entry, name: 'h', poll_seconds: 0 },
      ],
      tempDir(),
    );
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual([
      ['connectors.0.api_token', 'required (a string)'],
      ['connectors.1.email', 'expected the e-mail address of the Atlassian account the gateway acts as'],
      ['connectors.2.service_desk', expect.stringContaining('expected the service desk id')],
      ['connectors.3.service_desk', 'expected the service desk id (digits) or its project key (a letter, then letters, digits or _)'],
      ['connectors.4.url', 'must not carry user:password@ (give email and api_token as its own keys)'],
      ['connectors.5.replies', 'Invalid option: expected one of "public"|"internal"'],
      ['connectors.6.token', 'unknown key'],
      ['connectors.7.poll_seconds', 'Too small: expected number to be >=1'],
    ]);
    expect(JSON.stringify(problems)).not.toContain('secret-token-1');
  });

  it('the defaults: public replies, suggestions only counted, the project key upper-cased', () => {
    const config = JsmConnectorConfig.parse({ url: 'https://example.atlassian.net/', email: 'gw@example.com', api_token: 't', service_desk: 'help' });
    expect([config.url, config.service_desk, config.replies, config.suggestions_as_internal, config.poll_seconds]).toEqual(['https://example.atlassian.net', 'HELP', 'public', false, 30]);
    expect(JsmConnectorConfig.parse({ ...config, service_desk: 7 }).service_desk).toBe('7');
  });

  it('the service desk by its id finds the same requests as by its project key', async () => {
    const jsm = await jiraSite();
    const signal = new AbortController().signal;
    const byId = new JsmAdapter(JsmConnectorConfig.parse({ url: jsm.url, email: jsm.gateway.email, api_token: jsm.gateway.apiToken, service_desk: Number(jsm.desk.id) }));
    const since = (await byId.listChanges(undefined, signal)).nextSince;
    const { id } = await jsm.openRequest(jsm.customer, { summary: 'By id', description: 'x' });
    expect((await byId.listChanges(since, signal)).changes.map((c) => c.id)).toEqual([id]);
    expect(jsm.server.requests.some((r) => r.startsWith(`GET /rest/servicedeskapi/servicedesk/${jsm.desk.id}`))).toBe(true);
  });
});

describe('Jira Service Management connector, refused settings', () => {
  it('a refused API token: the gateway runs, the connector is unhealthy with Jira’s 401, the token never logged', async () => {
    const jsm = await jiraSite();
    const logLines: string[] = [];
    const token = 'ATATT3xFfGF0-a-wrong-token';
    const tg = await helpDesk(jsm, { extra: { api_token: token }, noWait: true, logLines });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two start-up attempts');
    const h = await health(tg);
    expect([h.ok, h.details.connected]).toEqual([false, false]);
    expect(h.details.last_error).toMatch(/Jira at .* answered GET \/rest\/api\/3\/myself with 401 \(the e-mail and API token were refused\): Client must be authenticated/);
    expect((await tg.call('GET', '/healthz')).status).toBe(200);
    expect(logLines.join('\n')).not.toContain(token);
    expect(logLines.join('\n')).not.toContain(Buffer.from(`${jsm.gateway.email}:${token}`).toString('base64'));
  });

  it('a service desk the account cannot see: unhealthy, naming it', async () => {
    const jsm = await jiraSite();
    const tg = await helpDesk(jsm, { extra: { service_desk: 'NOPE' }, noWait: true });
    await until(async () => (await health(tg)).details.last_error != null, ARRIVES_MS, 'the service desk error');
    expect((await health(tg)).details.last_error).toContain('no service desk "NOPE"');
  });
});
