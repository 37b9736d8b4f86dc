/**
 * The Zammad connector's settings: a refused token or a group the gateway's
 * user cannot work in leaves the gateway running and the connector unhealthy,
 * saying why (Zammad's own words), the token never logged; settings Zammad
 * could never take are refused when they are read, naming the key and never
 * repeating the token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConnectors } from '../../../src/connector/registry.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { until } from '../../support/wait.ts';
import { startZammad, type TestZammad } from '../../support/zammad/zammad-counterpart.ts';
import { ARRIVES_MS, CONNECTOR, health, helpDesk } from './support.ts';

let zammad: TestZammad;
beforeAll(async () => {
  zammad = await startZammad();
});
afterAll(() => zammad.close());

describe('Zammad connector, refused at start', () => {
  it('a refused token: the gateway runs, the connector is unhealthy with Zammad’s 401, the token never logged', async () => {
    const logLines: string[] = [];
    const token = 'zt-refused-0123456789abcdefghij';
    const { tg } = await helpDesk(zammad, { extra: { token }, noWait: true, logLines });
    await until(async () => (await health(tg)).details.consecutive_failures >= 2, ARRIVES_MS, 'two start-up attempts');
    const h = await health(tg);
    expect([h.ok, h.details.connected]).toEqual([false, false]);
    expect(h.details.last_error).toBe(`Zammad at ${new URL(zammad.url).host} answered GET /api/v1/users/me with 401 (the token was refused): Can't find User for Token`);
    expect((await tg.call('GET', '/healthz')).status).toBe(200);
    expect(logLines.join('\n')).not.toContain(token);
    expect(logLines.join('\n')).not.toContain(zammad.gateway.token);
  });

  it('a group the gateway user has no access to: unhealthy, naming the group and the ones it works in', async () => {
    const mine = await zammad.newGroup();
    const { tg } = await helpDesk(zammad, { group: 'Sales', noWait: true });
    await until(async () => (await health(tg)).details.last_error != null, ARRIVES_MS, 'the group error');
    const said = (await health(tg)).details.last_error as string;
    expect(said).toContain('no access to the group "Sales"');
    expect(said).toContain(`"${mine}"`);
  });
});

describe('Zammad connector, settings', () => {
  const entry = { name: CONNECTOR, type: 'zammad', url: 'https://zammad.example.com', token: 'secret-token-1', group: 'Support' };

  it('takes the documented entry with its defaults', async () => {
    const { problems, configs } = await loadConnectors([entry], tempDir());
    expect(problems).toEqual([]);
    expect(configs.get(CONNECTOR)).toMatchObject({ url: 'https://zammad.example.com', group: 'Support', poll_seconds: 30, replies: 'email', suggestions_as_internal_notes: false, search_overlap_seconds: 300 });
  });

  it('refuses what Zammad could never take, naming the key, never repeating the token', async () => {
    const { problems } = await loadConnectors(
      [
        { ...entry, name: 'a', token: undefined },
        { ...entry, name: 'b', group: '  ' },
        { ...entry, name: 'c', url: 'https://admin:secret-pw-1@zammad.example.com' },
        { ...entry, name: 'd', replies: 'sms' },
        { ...entry, name: 'e', token: 'Token token=secret-token-2' },
        { ...entry, name: 'f', search_overlap_seconds: 1 },
        { ...entry, name: 'g', queue: 'Support' },
        { ...entry, name: 'h', url: 'zammad.example.com' },
      ],
      tempDir(),
    );
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual([
      ['connectors.0.token', 'expected the access token of the Zammad user the gateway acts as'],
      ['connectors.1.group', 'expected the name of the Zammad group whose tickets are the conversations'],
      ['connectors.2.url', 'must not carry user:password@ (give token as its own keys)'],
      ['connectors.3.replies', 'expected email or note'],
      ['connectors.4.token', 'must not contain white space (give the token alone, without "Token token=")'],
      ['connectors.5.search_overlap_seconds', 'expected at least 10 seconds: the index takes some seconds to take a change'],
      ['connectors.6.queue', 'unknown key'],
      ['connectors.7.url', 'expected the http(s) URL of the Zammad root'],
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/secret-token|secret-pw/);
  });
});
