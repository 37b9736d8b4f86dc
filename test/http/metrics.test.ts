/**
 * /metrics in Prometheus text: webhooks by result, job runs by kind and
 * outcome, platform requests by status, jobs by status and connector health
 * read at scrape time.
 */
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/platform/signature.ts';
import { until } from '../support/wait.ts';
import { metricValue as value } from '../support/metrics.ts';
import { messageCreatedEnvelope } from '../support/events.ts';
import { RECORDER_MODULE, startTestGateway } from '../support/gateway.ts';

describe('GET /metrics', () => {
  it('counts what flowed through the gateway', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }] });
    await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T', messageId: 'm1', senderId: 'a@b.c', body: 'hi' });
    await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T'))?.chatId != null, 5_000, 'a chat');
    await tg.sandbox.call('POST', `/_sandbox/chats/${(await tg.gateway.store.read.threads.byKey('desk', 'T'))!.chatId}/agent_messages`, { text: 'ok' });
    await until(async () => (await tg.gateway.store.read.deliveries.countByStatus('desk')).delivered === 1, 5_000, 'a delivery');
    const raw = JSON.stringify(messageCreatedEnvelope({ threadId: 'desk:T' }));
    await tg.call('POST', '/webhooks/desk', raw, signedHeaders('0'.repeat(64), raw));

    const res = await tg.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.text;
    expect(value(text, 'threadgate_webhooks_received_total{connector="desk",result="accepted"}')).toBe(1);
    expect(value(text, 'threadgate_webhooks_received_total{connector="desk",result="rejected"}')).toBe(1);
    expect(value(text, 'threadgate_job_run_seconds_count{kind="connector.deliver",outcome="done"}')).toBe(1);
    expect(value(text, 'threadgate_job_run_seconds_count{kind="platform.post_messages",outcome="done"}')).toBe(1);
    expect(value(text, 'threadgate_platform_request_seconds_count{method="POST",status="201"}')).toBeGreaterThanOrEqual(2); // registration and the message
    expect(value(text, 'threadgate_jobs{kind="platform.post_messages",status="done"}')).toBe(1);
    // A delivered webhook's job is deleted once done (docs/decisions/done-deliveries-forgotten.md): the run counts it.
    expect(value(text, 'threadgate_jobs{kind="connector.deliver",status="done"}')).toBeUndefined();
    expect(value(text, 'threadgate_connector_up{connector="desk"}')).toBe(1);
    expect(text).toContain('threadgate_process_resident_memory_bytes');
  });

  it('a gateway on PostgreSQL (one replica of several) labels every series with its replica', async () => {
    const tg = await startTestGateway({ connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE }], store: 'postgres' });
    const lines = (await tg.call('GET', '/metrics')).text.split('\n').filter((l) => l.startsWith('threadgate_'));
    expect(lines.length).toBeGreaterThan(10);
    const replicas = new Set(lines.map((l) => /replica="([^"]+)"/.exec(l)?.[1]));
    expect([...replicas]).toEqual([expect.stringMatching(/^.+-\d+-[0-9a-f]{8}$/)]);
  });
});
