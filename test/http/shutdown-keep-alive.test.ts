/**
 * A request in flight when the gateway stops is answered, and its
 * keep-alive connection does not hold the stop for the server's keep-alive
 * timeout (72 s): once idle it is closed. Guards against a webhook arriving
 * just as the gateway stops making `close` wait over a minute.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../src/connector/testing/test-gateway.ts';
import { tempDir } from '../support/temp-dir.ts';

const SLOW_CONNECTOR = `
import { z } from 'zod';
import { defineConnector } from ${JSON.stringify(new URL('../../src/connector/api.ts', import.meta.url).pathname)};
export default defineConnector({
  type: 'slow',
  configSchema: z.strictObject({}),
  create(_config, ctx) {
    ctx.routes.add('POST', '/wait', async () => {
      await new Promise((done) => setTimeout(done, 400));
      return { status: 200, body: { waited: true } };
    });
    return { start() {}, stop() {}, async deliver() {} };
  },
});
`;

let tg: TestGateway | undefined;
const agent = new Agent({ keepAliveTimeout: 120_000, keepAliveMaxTimeout: 120_000 });
afterEach(async () => {
  await tg?.stop().catch(() => undefined);
  tg = undefined;
});

describe('stopping with a keep-alive connection', () => {
  it('answers the request in flight and closes its connection once idle, without waiting out the keep-alive timeout', { timeout: 30_000 }, async () => {
    const dir = tempDir('slow-connector-');
    writeFileSync(join(dir, 'slow.ts'), SLOW_CONNECTOR);
    tg = await startTestGateway({ connectors: [{ name: 'slow', type: 'slow', module: join(dir, 'slow.ts') }] });
    const answer = request(`${tg.url}/connectors/slow/wait`, { method: 'POST', dispatcher: agent }).then(async (r) => ({ status: r.statusCode, body: await r.body.json() }));
    await new Promise((done) => setTimeout(done, 150));
    const started = Date.now();
    const stopped = tg.stop();
    tg = undefined;
    expect(await answer).toEqual({ status: 200, body: { waited: true } });
    await stopped;
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
