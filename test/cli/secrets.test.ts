/**
 * `threadgate secrets rotate`: run as its own process beside a serving
 * gateway, on the same store; webhooks keep being accepted throughout.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { sleep, until } from '../support/wait.ts';
import { runCli, runCliAsync } from '../support/cli.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';

describe('threadgate secrets rotate', () => {
  it('stores a new secret, keeps the old one for the grace period, and the platform signs with the new one', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    const old = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
    const r = await runCliAsync(['secrets', 'rotate', 'desk', '--grace', '1h', '--config', join(tg.dir, 'threadgate.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^desk: new webhook secret sent to configuration [0-9a-f-]{36}; the previous one is accepted until \d{4}-/);

    const row = (await tg.gateway.store.read.registrations.get('desk'))!;
    expect(row.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(row.secret).not.toBe(old);
    expect(row.previousSecret).toBe(old);
    expect(row.previousSecretExpiresAt! - Date.now()).toBeGreaterThan(59 * 60_000);

    // The sandbox now signs with the new secret, and the serving gateway accepts it.
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'rot', messageId: 'r1', senderId: 'a@b.c', body: 'hi' });
    await until(async () => (await tg.call('GET', '/connectors/desk/threads/rot')).body?.chatId != null, 5_000, 'a chat');
    const chatId = (await tg.call('GET', '/connectors/desk/threads/rot')).body.chatId as string;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'after rotation' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'a delivery');
    const v = (await tg.gateway.store.read.sql.get(`select verification from deliveries where status = 'delivered'`)) as { verification: string };
    expect(v.verification).toBe('valid');
  });

  // Guards against the receiver's in-memory secrets going stale when another process rotates them.
  it('a serving gateway that already read the old secret accepts webhooks signed with the one rotated by the CLI', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'warm', messageId: 'w1', senderId: 'a@b.c', body: 'hi' });
    await until(async () => (await tg.call('GET', '/connectors/desk/threads/warm')).body?.chatId != null, 5_000, 'a chat');
    const chatId = (await tg.call('GET', '/connectors/desk/threads/warm')).body.chatId as string;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'before rotation' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'the first delivery');

    const r = await runCliAsync(['secrets', 'rotate', 'desk', '--grace', '1h', '--config', join(tg.dir, 'threadgate.yaml')]);
    expect(r.status).toBe(0);
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'after rotation' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 2, 5_000, 'the second delivery');
    const rows = (await tg.gateway.store.read.sql.all(`select verification, status from deliveries order by id`));
    expect(rows).toEqual([
      { verification: 'valid', status: 'delivered' },
      { verification: 'valid', status: 'delivered' },
    ]);
  });

  // Guards against a running gateway accepting a secret rotated out by another process until a webhook fails.
  it('stops accepting a secret rotated out with --grace 0 by the CLI, although it was in use a moment before', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    const configId = (await tg.gateway.store.read.registrations.get('desk'))!.configId;
    const old = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
    const send = () => {
      const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T-rot', configId, roomId: tg.sandbox.roomId, messagingChannel: 'recorder' }));
      return tg.call('POST', '/webhooks/desk', raw, signedHeaders(old, raw));
    };
    const before = await send();
    expect(before.body).toMatchObject({ received: true }); // the old secret is read and in use
    const r = await runCliAsync(['secrets', 'rotate', 'desk', '--grace', '0s', '--config', join(tg.dir, 'threadgate.yaml')]);
    expect(r.status).toBe(0);
    await sleep(1_100); // the receiver reads its secrets again at least once a second
    const after = await send();
    expect(after.status).toBe(401);
  });

  it('refuses an unknown connector and a bad --grace with exit 2 and a message', async () => {
    expect(runCli(['secrets', 'rotate']).status).toBe(2);
    const r = runCli(['secrets', 'rotate', 'desk', '--grace', 'soon']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--grace must be a duration such as 90s, 15m, 2h or 7d');
  });
});
