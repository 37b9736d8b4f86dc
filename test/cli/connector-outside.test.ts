/**
 * A connector module of one's own, in a folder outside the gateway's
 * install (next to its settings file, as in /etc/threadgate), importing what
 * the connector guide shows: `threadgate/connector` and `zod`. Neither is
 * installed there; the gateway resolves them from its own install, so
 * `config check` accepts the entry and `serve` runs the connector — with the
 * gateway's own API module, whose error classes its job runner recognises.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openSettingsStore } from '../../src/cli/store-access.ts';
import { loadSettings } from '../../src/config/load.ts';
import { startTestSandbox, type TestSandbox } from '../sandbox/support.ts';
import { runCliAsync, startCli } from '../support/cli.ts';
import { tempDir } from '../support/temp-dir.ts';

const MODULE = `import { z } from 'zod';
import { defineConnector, PermanentDeliveryError } from 'threadgate/connector';

export default defineConnector({
  type: 'shout',
  configSchema: z.strictObject({ word: z.string().min(1) }),
  create(config, ctx) {
    ctx.routes.add('POST', '/say', async (request) => {
      const { thread } = JSON.parse(request.rawBody.toString('utf8')) as { thread: string };
      const result = await ctx.submit({ threadKey: thread, messageId: thread + '-1', senderId: 'ann@example.com', body: config.word });
      return { status: 202, body: { thread_id: result.threadId } };
    });
    return {
      start() {},
      stop() {},
      async deliver() {
        throw new PermanentDeliveryError('this connector sends nothing out');
      },
    };
  },
});
`;

function folder(entry: Record<string, unknown>, sandbox?: TestSandbox): string {
  const dir = tempDir('threadgate-own-connector-');
  writeFileSync(join(dir, 'shout.ts'), MODULE);
  const platform = sandbox ? { platform: { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token } } : {};
  const connector = { name: 'shout', type: 'shout', module: './shout.ts', ...(sandbox ? { room_id: sandbox.roomId } : {}), ...entry };
  writeFileSync(join(dir, 'threadgate.yaml'), stringify({ ...platform, store: { path: 'gateway.db' }, connectors: [connector] }));
  return dir;
}

describe('a connector module outside the gateway install', () => {
  it('config check loads it and checks its own keys against its schema', async () => {
    const good = folder({ word: 'hey' });
    const ok = await runCliAsync(['config', 'check', '--config', join(good, 'threadgate.yaml')]);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    const bad = folder({});
    const refused = await runCliAsync(['config', 'check', '--config', join(bad, 'threadgate.yaml')]);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toContain('connectors[0].word');
    expect(refused.stdout + refused.stderr).not.toContain('Cannot find package');
  });

  it('serve runs it: its route submits to the platform, and its PermanentDeliveryError dead-letters at once', async () => {
    const sandbox = await startTestSandbox();
    const dir = folder({ word: 'hey' }, sandbox);
    const gw = startCli(['serve', '--config', join(dir, 'threadgate.yaml'), '--port', '0'], { cwd: dir });
    const url = String((await gw.waitForLine((l) => l.event === 'gateway_ready')).url);
    const res = await fetch(`${url}/connectors/shout/say`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ thread: 't-1' }) });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ thread_id: 'shout:t-1' });
    await gw.waitForLine((l) => l.msg === 'messages posted to the platform');
    const chatId = (await sandbox.call('GET', '/_sandbox/chats?thread_id=shout:t-1')).body.results[0].chat.id as string;
    await sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'Hi' });
    const dead = await gw.waitForLine((l) => l.msg === 'job failed (dead)');
    expect(dead).toMatchObject({ err: { code: 'TG_DELIVERY_PERMANENT', message: 'this connector sends nothing out' } });
    gw.child.kill('SIGTERM');
    expect(await gw.exited).toBe(0);

    const store = await openSettingsStore(loadSettings({ path: join(dir, 'threadgate.yaml') }), { migrate: false });
    try {
      const rows = await store.read.sql.all(`select d.status, (select count(*) from delivery_attempts a where a.delivery = d.id) as attempts from deliveries d where connector = 'shout'`);
      expect(rows).toEqual([{ status: 'dead', attempts: 1 }]);
    } finally {
      await store.close();
    }
  });
});
