/**
 * /readyz of a gateway on PostgreSQL while its database restarts: not ready
 * (503, naming the store) while the database is down, ready again once it is
 * back, with no restart of the gateway, and messages submitted after it are
 * stored and posted. The database is a cluster of its own: the run's shared
 * one must not go down under other test files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { startPostgres, type RunningPostgres } from '../support/postgres-server.ts';
import { until } from '../support/wait.ts';

let own: RunningPostgres;
beforeAll(async () => {
  own = await startPostgres();
}, 60_000);
afterAll(() => own?.stop());

describe('/readyz on PostgreSQL', () => {
  it('is 503 naming the store while the database is down, and 200 again once it is back', { timeout: 60_000 }, async () => {
    const url = await own.createDatabase('readyz');
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }], settings: { store: { url } } });
    expect((await tg.call('GET', '/readyz')).status).toBe(200);

    await own.kill();
    const down = await tg.call('GET', '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks.store).toMatch(/^unavailable: /);
    expect(JSON.stringify(down.body)).not.toContain('threadgate-test'); // the password

    await own.start();
    await until(async () => (await tg.call('GET', '/readyz')).status === 200, 20_000, 'ready again');
    const submitted = await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T', messageId: 'after', senderId: 'a@b.c', body: 'after the restart' });
    expect(submitted.status).toBe(202);
    await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T'))?.chatId != null, 10_000, 'the message posted');
  });
});
