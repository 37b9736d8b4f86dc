/**
 * POST /webhooks/<connector>: what the receiver accepts, what it refuses and
 * with which status, and that every refusal is recorded (within its budget).
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders, signWebhook } from '../../src/platform/signature.ts';
import { delivered } from '../fixtures/connectors/recorder.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { startTestSandbox } from '../sandbox/support.ts';
import { until } from '../support/wait.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';

const desk = { name: 'desk', type: 'recorder', module: RECORDER_MODULE };

async function messageCreated(tg: TestGateway, overrides: Record<string, unknown> = {}) {
  const configId = (await tg.gateway.store.read.registrations.get('desk'))!.configId;
  return { ...messageCreatedEnvelope({ threadId: 'desk:T-hook', configId, roomId: tg.sandbox.roomId, messagingChannel: 'recorder' }), ...overrides };
}

async function post(tg: TestGateway, body: unknown, headers?: Record<string, string>, connector = 'desk') {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const secret = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
  return tg.call('POST', `/webhooks/${connector}`, raw, headers ?? signedHeaders(secret, raw));
}

const rejected = async (tg: TestGateway) =>
  (await tg.gateway.store.read.sql.all(`select connector, verification, error, body from deliveries where status = 'rejected' order by id`)) as {
    connector: string; verification: string; error: string; body: string;
  }[];

describe('accepted webhooks', () => {
  it('a signed event is stored with its job (each naming the other) and answered 200; the same event again is a duplicate without a second job', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    // The job is read while it waits: a delivered webhook's done job is deleted (job-kind-options.ts `forgetDone`).
    await tg.gateway.bridge.runner.stop(1_000);
    const event = (await messageCreated(tg));
    const first = await post(tg, event);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ received: true, duplicate: false });
    const again = await post(tg, event);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ received: true, duplicate: true });
    const jobs = await tg.gateway.store.read.sql.all<{ id: number; payload: string }>(`select id, payload from jobs where kind = 'connector.deliver'`);
    expect(jobs).toHaveLength(1);
    // The delivery and its job name each other (the job's id written beside the runner's take of it).
    expect(JSON.parse(jobs[0]!.payload)).toMatchObject({ connector: 'desk', delivery: first.body.delivery_id });
    expect(await tg.gateway.store.read.sql.get(`select job_id from deliveries where id = ?`, [first.body.delivery_id])).toEqual({ job_id: jobs[0]!.id });
    const rows = (await tg.gateway.store.read.sql.all(`select status, duplicate_of, verification from deliveries order by id`));
    expect(rows).toEqual([
      { status: 'accepted', duplicate_of: null, verification: 'valid' },
      { status: 'duplicate', duplicate_of: first.body.delivery_id, verification: 'valid' },
    ]);
  });

  it('a delivered webhook leaves its delivery and its attempt, which name the job; the done job itself is deleted', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const first = await post(tg, await messageCreated(tg));
    expect(first.status).toBe(200);
    const id = first.body.delivery_id as number;
    const sql = tg.gateway.store.read.sql;
    await until(async () => (await sql.get<{ status: string }>(`select status from deliveries where id = ?`, [id]))?.status === 'delivered', 5_000, 'the webhook delivered');
    const { job_id: jobId } = (await sql.get<{ job_id: number }>(`select job_id from deliveries where id = ?`, [id]))!;
    expect(await sql.all(`select job_id, outcome from delivery_attempts where delivery = ?`, [id])).toEqual([{ job_id: jobId, outcome: 'delivered' }]);
    await until(async () => (await sql.all(`select id from jobs where id = ?`, [jobId])).length === 0, 5_000, 'the done job deleted');
  });

  it('an event is its id at its created_at: the same id at another time is a new event, unless platform.webhook_dedup is id', async () => {
    const sent = async (tg: TestGateway) => {
      const event = await messageCreated(tg);
      const later = { ...event, message: { ...event.message, created_at: '2031-01-01T00:00:00.000Z' } };
      return [(await post(tg, event)).body.duplicate, (await post(tg, later)).body.duplicate, (await post(tg, event)).body.duplicate];
    };
    expect(await sent(await startTestGateway({ connectors: [desk] }))).toEqual([false, false, true]);
    const sandbox = await startTestSandbox({ retryBaseMs: 20 });
    const platform = { url: sandbox.url, organization_id: sandbox.organizationId, token: sandbox.token, webhook_dedup: 'id' };
    const byId = await startTestGateway({ connectors: [desk], sandbox, settings: { platform } });
    expect(await sent(byId)).toEqual([false, true, true]);
    expect(await byId.gateway.store.read.sql.all(`select event_at, status from deliveries order by id`)).toEqual([
      { event_at: '', status: expect.stringMatching(/accepted|delivered/) },
      { event_at: '', status: 'duplicate' },
      { event_at: '', status: 'duplicate' },
    ]);
  });

  it('the platform retrying after a slow answer produces exactly one delivery to the connector', async () => {
    // The sandbox gives up on our answer after 1 ms, so it sends the same event again, and again.
    const sandbox = await startTestSandbox({ retryBaseMs: 20, webhookTimeoutMs: 1 });
    const tg = await startTestGateway({ connectors: [desk], sandbox });
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T-slow', messageId: 's-1', senderId: 'a@b.c', body: 'hi' });
    await until(async () => (await tg.call('GET', '/connectors/desk/threads/T-slow')).body?.chatId != null, 5_000, 'a chat');
    const chatId = (await tg.call('GET', '/connectors/desk/threads/T-slow')).body.chatId as string;
    const before = delivered.filter((d) => d.thread?.key === 'T-slow').length;
    await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'once only' });
    await until(async () => ((await tg.gateway.store.read.deliveries.countByStatus('desk')).duplicate ?? 0) >= 2, 5_000, 'the retries to arrive');
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'the delivery');
    expect(delivered.filter((d) => d.thread?.key === 'T-slow').length - before).toBe(1);
  });

  it('after a rotation, webhooks signed with the previous secret are still accepted during the grace period', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const old = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
    await tg.gateway.bridge.registrar.rotate('desk', 60_000);
    const now = (await tg.gateway.store.read.registrations.get('desk'))!;
    expect(now.secret).not.toBe(old);
    expect(now.previousSecret).toBe(old);
    const raw = JSON.stringify((await messageCreated(tg)));
    const res = await tg.call('POST', '/webhooks/desk', raw, signedHeaders(old, raw));
    expect(res.status).toBe(200);
    const row = (await tg.gateway.store.read.sql.get(`select verification from deliveries where id = ?`, [res.body.delivery_id])) as { verification: string };
    expect(row.verification).toBe('valid-previous-secret');
  });
});

describe('refused webhooks', () => {
  it('a forged signature is 401 and recorded as rejected', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const raw = JSON.stringify((await messageCreated(tg)));
    const res = await post(tg, raw, signedHeaders('f'.repeat(64), raw));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'TG_SIGNATURE_INVALID' });
    expect((await rejected(tg))).toEqual([expect.objectContaining({ connector: 'desk', verification: 'TG_SIGNATURE_INVALID', body: raw })]);
  });

  it('a stale timestamp is 401 even with a valid signature over it', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const raw = JSON.stringify((await messageCreated(tg)));
    const secret = (await tg.gateway.store.read.registrations.get('desk'))!.secret;
    const ts = Math.floor(Date.now() / 1000) - 3_600;
    const res = await post(tg, raw, { 'x-svc-signature': signWebhook(secret, raw, ts), 'x-svc-timestamp': String(ts) });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('TG_TIMESTAMP_STALE');
    expect((await rejected(tg))[0]?.verification).toBe('TG_TIMESTAMP_STALE');
  });

  it('a body over server.body_limit_bytes is 413 with a JSON body, and recorded', async () => {
    const tg = await startTestGateway({ connectors: [desk], settings: { server: { body_limit_bytes: 2048 } } });
    const raw = JSON.stringify((await messageCreated(tg, { padding: 'x'.repeat(4_000) })));
    const res = await post(tg, raw);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'TG_BODY_TOO_LARGE' });
    expect((await rejected(tg))).toEqual([expect.objectContaining({ connector: 'desk', error: expect.stringContaining('TG_BODY_TOO_LARGE') })]);
  });

  it('malformed JSON and an unknown event_type are 400 naming what is wrong', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const bad = await post(tg, '{"event_type": ');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('malformed JSON');
    const unknown = await post(tg, (await messageCreated(tg, { event_type: 'chat_renamed' })));
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('TG_WEBHOOK_PAYLOAD_INVALID');
    expect(unknown.body.errors.map((e: { path: string }) => e.path)).toContain('event_type');
    expect((await rejected(tg))).toHaveLength(2);
  });

  it('an unknown connector is 404', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const res = await post(tg, (await messageCreated(tg)), undefined, 'nobody');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('TG_CONNECTOR_UNKNOWN');
  });

  it('records at most 60 refusals a minute per connector, answering every one', async () => {
    const tg = await startTestGateway({ connectors: [desk] });
    const raw = JSON.stringify((await messageCreated(tg)));
    const statuses: number[] = [];
    for (let i = 0; i < 80; i++) statuses.push((await post(tg, raw, signedHeaders('0'.repeat(64), raw))).status);
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect((await rejected(tg))).toHaveLength(60);
  });
});
