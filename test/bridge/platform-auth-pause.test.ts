/**
 * A platform that refuses the gateway's token (401/403) pauses the platform
 * posts of the connector instead of dead-lettering its messages: they stay
 * pending, their jobs use no tries, /readyz, /metrics and the admin API say
 * so, and everything is posted in order once the platform accepts the token.
 */
import { describe, expect, it } from 'vitest';
import { sleep, until } from '../support/wait.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { gauge } from '../support/metrics.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { startTestSandbox } from '../sandbox/support.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
// Re-checks come after 1 s, 2 s, 4 s: a 3.5 s refusal spans two failed ones.
const REFUSED_MS = 3_500;
const RESUMED_MS = 10_000;

async function submit(tg: TestGateway, messageId: string, body: string) {
  const res = await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T-auth', messageId, senderId: 'ann@example.com', body });
  expect(res.status).toBe(202);
}

async function chatMessages(tg: TestGateway): Promise<string[]> {
  const chatId = (await tg.call('GET', '/connectors/desk/threads/T-auth')).body?.chatId as string | null;
  if (!chatId) return [];
  const all = (await tg.sandbox.call('GET', `/_sandbox/chats/${chatId}/messages`)).body.results as { type: string; message: string }[];
  return all.filter((m) => m.type === 'msg').map((m) => m.message);
}

const rows = async (tg: TestGateway, sql: string) => (await tg.gateway.store.read.sql.all<Record<string, unknown>>(sql));

describe('the platform refuses the token', () => {
  // Guards against: an expired or rotated platform token turning every customer message into a dead job at once.
  it('pauses the connector: messages stay pending without using tries, the condition is reported, and all are posted in order afterwards', async () => {
    const sandbox = await startTestSandbox();
    const proxy = await startOutageProxy(sandbox.url);
    const tg = await startTestGateway({
      connectors: [desk],
      sandbox,
      platformUrl: proxy.url,
      // Two tries would be spent by the first refusal and one re-check if a paused job used tries.
      settings: { jobs: { platform_max_attempts: 2 }, server: { admin_token: ADMIN_TOKEN } },
    });
    proxy.mode = '401';
    for (let i = 1; i <= 3; i++) await submit(tg, `a-${i}`, `message ${i}`);
    await until(async () => proxy.refused > 0, 3_000, 'a refused POST');
    await sleep(REFUSED_MS);

    expect((await rows(tg, `select status from inbound_messages order by id`)).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
    // A postponed job is due again at each re-check and is held running for the instant it takes to postpone it
    // again: the rows are read between two such instants.
    const postJobs = () => rows(tg, `select status, attempts, last_error from jobs where kind = 'platform.post_messages'`);
    await until(async () => (await postJobs()).every((job) => job.status !== 'running'), 3_000, 'no post job between re-checks');
    const jobs = await postJobs();
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) {
      expect(job.status).toBe('queued');
      expect(job.attempts).toBe(0);
      expect(job.last_error).toMatch(/^TG_CONNECTOR_PAUSED: platform posts of connector desk are paused/);
    }
    const refusedAttempts = (await rows(tg, `select outcome, status from inbound_attempts`));
    expect(refusedAttempts.length).toBeGreaterThan(0);
    expect(refusedAttempts.every((a) => a.outcome === 'failed' && a.status === 401)).toBe(true);

    expect((await tg.call('GET', '/readyz')).status).toBe(200);
    const strict = await tg.call('GET', '/readyz?strict=1');
    expect(strict.status).toBe(503);
    expect(strict.body.connectors.desk).toMatchObject({ registered: true, up: false, paused: { status: 401 } });
    expect(strict.body.connectors.desk.paused.checks).toBeGreaterThanOrEqual(1);
    expect(strict.body.platform).toMatchObject({ up: true, auth: 'refused' });
    expect(await gauge(tg, 'threadgate_connector_paused{connector="desk"}')).toBe(1);
    expect(await gauge(tg, 'threadgate_connector_up{connector="desk"}')).toBe(0);
    expect(await gauge(tg, 'threadgate_platform_auth_ok')).toBe(0);
    const admin = await tg.call('GET', '/admin/api/connectors', undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(admin.body.results[0]).toMatchObject({ name: 'desk', up: false, paused: { status: 401 } });
    expect(await chatMessages(tg)).toEqual([]);

    proxy.mode = 'up';
    await until(async () => (await chatMessages(tg)).length >= 3, RESUMED_MS, 'the 3 messages after the token works again');
    expect(await chatMessages(tg)).toEqual(['message 1', 'message 2', 'message 3']);
    expect((await rows(tg, `select status from inbound_messages order by id`)).map((r) => r.status)).toEqual(['posted', 'posted', 'posted']);
    expect((await rows(tg, `select count(*) as n from jobs where status = 'dead'`))[0]!.n).toBe(0);
    const after = await tg.call('GET', '/readyz?strict=1');
    expect(after.status).toBe(200);
    expect(after.body.connectors.desk.paused).toBeNull();
    expect(await gauge(tg, 'threadgate_connector_paused{connector="desk"}')).toBe(0);
    expect(await gauge(tg, 'threadgate_platform_auth_ok')).toBe(1);
  });
});
