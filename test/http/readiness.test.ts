/**
 * /readyz over real HTTP: 503 until every connector's channel is registered
 * (or known from the store), 200 after; `?strict=1` also 503 while the
 * platform does not answer or a connector is down; the same condition in
 * the gauges of /metrics.
 */
import { describe, expect, it } from 'vitest';
import { until } from '../support/wait.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { gauge } from '../support/metrics.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { refused } from './admin-api-support.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
// Registration retries in the background after 1 s, then 2 s…: a few seconds cover the first ones.
const REGISTERED_MS = 10_000;
// The tests' idle probe: the platform is looked at when nothing called it for this long.
const PROBE_MS = 200;

const readyz = (tg: TestGateway, strict = false) => tg.call('GET', strict ? '/readyz?strict=1' : '/readyz');

describe('/readyz waits for channel registration', () => {
  // Guards against: /readyz answering 200 before the channel was registered, so a load balancer sends webhooks that are refused.
  it('is 503 while the platform holds registration back, 200 once the channel is registered', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    proxy.mode = '503';
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url });

    const waiting = await readyz(tg);
    expect(waiting.status).toBe(503);
    expect(waiting.body).toMatchObject({ status: 'not_ready', checks: { store: 'open', registrations: 'waiting for desk' } });
    expect(waiting.body.connectors.desk).toMatchObject({ registered: false, up: false });
    expect(waiting.body.problems).toContain('channel registration pending for desk');
    expect((await tg.call('GET', '/healthz')).status).toBe(200);

    proxy.mode = 'up';
    await until(async () => (await readyz(tg)).status === 200, REGISTERED_MS, '/readyz 200 after registration');
    const ready = await readyz(tg);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { registrations: 'complete' } });
    expect(ready.body.connectors.desk).toMatchObject({ registered: true, up: true, paused: null });
  });

  // Guards against: a restart during a platform outage staying out of the load balancer although its channel is known.
  it('counts a registration stored by an earlier run: ready at once with the platform down, but not strictly', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const one = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url });
    await one.gateway.close();
    proxy.mode = 'reset';
    const two = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url, dir: one.dir });

    expect((await readyz(two)).status).toBe(200);
    const strict = await readyz(two, true);
    expect(strict.status).toBe(503);
    expect(strict.body).toMatchObject({ status: 'not_ready', strict: true, platform: { up: false } });
  });
});

describe('/readyz?strict=1 for monitors', () => {
  // Guards against: an unreachable platform visible nowhere but inside the body of a 200.
  it('platform down: /readyz stays 200, strict is 503 and threadgate_platform_up 0; up again: both 200 and 1', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({ connectors: [desk], sandbox, platformUrl: proxy.url, platformProbeMs: PROBE_MS });
    expect((await readyz(tg, true)).status).toBe(200);
    expect(await gauge(tg, 'threadgate_platform_up')).toBe(1);

    proxy.mode = 'reset';
    await until(async () => (await readyz(tg, true)).status === 503, 5_000, 'strict 503 with the platform down');
    expect((await readyz(tg)).status).toBe(200);
    const strict = await readyz(tg, true);
    expect(strict.body.platform).toMatchObject({ up: false, last: 'TG_PLATFORM_UNREACHABLE' });
    expect(strict.body.problems).toContain('platform unreachable (last: TG_PLATFORM_UNREACHABLE)');
    expect(await gauge(tg, 'threadgate_platform_up')).toBe(0);

    proxy.mode = 'up';
    await until(async () => (await readyz(tg, true)).status === 200, 5_000, 'strict 200 with the platform back');
    expect(await gauge(tg, 'threadgate_platform_up')).toBe(1);
  });

  // Guards against: a connector that reports itself down leaving every status code at 200.
  it('a connector down: /readyz stays 200, strict is 503 and threadgate_connector_up 0', async () => {
    const tg = await startTestGateway({ connectors: [desk, { ...desk, name: 'other' }] });
    expect((await readyz(tg, true)).status).toBe(200);
    expect((await tg.call('POST', '/connectors/desk/health', { ok: false })).status).toBe(200);

    expect((await readyz(tg)).status).toBe(200);
    const strict = await readyz(tg, true);
    expect(strict.status).toBe(503);
    expect(strict.body.connectors.desk).toMatchObject({ ok: false, registered: true, up: false });
    expect(strict.body.connectors.other).toMatchObject({ ok: true, up: true });
    expect(strict.body.problems).toEqual(['connector desk reports itself unhealthy']);
    expect(await gauge(tg, 'threadgate_connector_up{connector="desk"}')).toBe(0);
    expect(await gauge(tg, 'threadgate_connector_up{connector="other"}')).toBe(1);
  });

  // Guards against: a monitor's typo in the query silently answered as the lenient check.
  it('refuses an unknown strict value with 400 naming query.strict', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    refused(await tg.call('GET', '/readyz?strict=yes'), 400, 'TG_REQUEST_INVALID', 'query.strict');
  });
});
