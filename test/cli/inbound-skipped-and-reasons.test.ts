/**
 * `threadgate inbound` as an operator reads it: `--status skipped` lists what
 * connectors read and did not post, with code and reason; a platform
 * refusal shows its reason first (code and answer), the call last, so a cut
 * table cell still says why.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reasonFirst } from '../../src/cli/log-tables.ts';
import { runCliAsync } from '../support/cli.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';
import { until } from '../support/wait.ts';

describe('threadgate inbound: skipped messages and reasons first', () => {
  it('reasonFirst puts the code and the answer before the call, and leaves other errors as they are', () => {
    expect(reasonFirst('TG_PLATFORM_REJECTED: POST /api/v5/orgs/a3715d21/unified_messaging/c1/messages → 400: sender_id is not a user after 2 attempts'))
      .toBe('TG_PLATFORM_REJECTED: 400: sender_id is not a user after 2 attempts (POST /api/v5/orgs/a3715d21/unified_messaging/c1/messages)');
    expect(reasonFirst('GET /api/v5/x → no response (ECONNRESET: socket hang up)')).toBe('no response (ECONNRESET: socket hang up) (GET /api/v5/x)');
    expect(reasonFirst('TG_CONNECTOR_PAUSED: the platform refused the token')).toBe('TG_CONNECTOR_PAUSED: the platform refused the token');
    expect(reasonFirst(null)).toBeNull();
  });

  it('lists skipped messages with code and reason; refuses skipped mixed with other statuses or a thread', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    await tg.call('POST', '/connectors/desk/skip', { messageId: '<ooo@example.com>', code: 'TG_EMAIL_AUTO_REPLY', reason: 'an automatic reply (Auto-Submitted: auto-replied)', summary: 'Out of office' });
    await tg.call('POST', '/connectors/desk/skip', { messageId: '<news@example.com>', code: 'TG_EMAIL_BULK', reason: 'bulk mail (Precedence: bulk)', summary: 'Offers' });
    const config = join(tg.dir, 'threadgate.yaml');

    const listed = await runCliAsync(['inbound', 'list', '--status', 'skipped', '--config', config]);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+received\s+connector\s+code\s+reason\s+summary\s+external id$/);
    expect(lines.slice(2)).toEqual([
      expect.stringMatching(/^2\s+\S+\s+desk\s+TG_EMAIL_BULK\s+bulk mail \(Precedence: bulk\)\s+Offers\s+<news@example\.com>$/),
      expect.stringMatching(/^1\s+\S+\s+desk\s+TG_EMAIL_AUTO_REPLY\s+an automatic reply \(Auto-Submitted: auto-replied\)\s+Out of office\s+<ooo@example\.com>$/),
    ]);
    const json = await runCliAsync(['inbound', 'list', '--status', 'skipped', '--limit', '1', '--json', '--config', config]);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ code: 'TG_EMAIL_BULK', externalId: '<news@example.com>', receivedAt: expect.stringMatching(/^\d{4}-/) })]);

    const mixed = await runCliAsync(['inbound', 'list', '--status', 'skipped,dead', '--config', config]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain('--status skipped lists what connectors read and did not post; give it alone');
    const threaded = await runCliAsync(['inbound', 'list', '--status', 'skipped', '--thread', 'desk:T1', '--config', config]);
    expect(threaded.status).toBe(2);
    expect(threaded.stderr).toContain('a skipped message never got a thread');
  });

  it('a message the platform refused shows the refusal first in the list', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T-ghost', messageId: 'g-1', senderId: '00000000-0000-4000-8000-000000000000', senderType: 'user', body: 'from a ghost' });
    await until(async () => (await tg.gateway.store.read.inbound.byId(1))?.status === 'dead', 10_000, 'the refused message');
    const listed = await runCliAsync(['inbound', 'list', '--status', 'dead', '--config', join(tg.dir, 'threadgate.yaml')]);
    expect(listed.status).toBe(0);
    const row = listed.stdout.trim().split('\n')[2]!;
    expect(row).toMatch(/\s(TG_PLATFORM_REJECTED: )?4\d\d: /);
    expect(row).not.toMatch(/\s(TG_PLATFORM_REJECTED: )?POST \/api/);
  });
});
