/**
 * The proxy's histogram (`threadgate_proxy_request_seconds`, label sets bound
 * once) prints exactly what prom-client's own Histogram prints for the same
 * calls — registry default labels included — and a gateway counts its
 * proxied calls in it by client, method, documented template and status.
 */
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ProxyCallHistogram, type ProxyCall } from '../../src/http/proxy/call-histogram.ts';
import { metricValue } from '../support/metrics.ts';
import { PROXY_ORG, proxyAuth, proxyGateway, recordingUpstream } from '../support/proxy-upstream.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CALLS: ProxyCall[] = [
  { client: 'crm', method: 'GET', template: '/api/v5/orgs/<organization_id>/unified_messaging', status: 200, seconds: 0.004 },
  { client: 'crm', method: 'GET', template: '/api/v5/orgs/<organization_id>/unified_messaging', status: 200, seconds: 0.2 },
  { client: 'crm', method: 'GET', template: '/api/v5/orgs/<organization_id>/unified_messaging', status: 502, seconds: 31 },
  { client: 'bi', method: 'POST', template: '/api/v5/orgs/<organization_id>/unified_messaging', status: 201, seconds: 0.01 },
];

async function printed(make: (registry: Registry) => (call: ProxyCall) => void): Promise<string> {
  const registry = new Registry();
  registry.setDefaultLabels({ replica: 'r-1' });
  const observe = make(registry);
  for (const call of CALLS) observe(call);
  return registry.metrics();
}

describe('the proxy histogram', () => {
  it("prints what prom-client's Histogram prints for the same calls", async () => {
    const ours = await printed((registry) => {
      const h = new ProxyCallHistogram({ name: 'proxy_seconds', help: 'Proxied calls.', buckets: BUCKETS, registers: [registry] });
      return (call) => h.observe(call);
    });
    const theirs = await printed((registry) => {
      const h = new Histogram({ name: 'proxy_seconds', help: 'Proxied calls.', labelNames: ['client', 'method', 'template', 'status'], buckets: BUCKETS, registers: [registry] });
      return ({ seconds, status, ...labels }) => h.observe({ ...labels, status: String(status) }, seconds);
    });
    expect(ours).toBe(theirs);
    expect(ours).toContain('proxy_seconds_count{replica="r-1",client="crm",method="GET",template="/api/v5/orgs/<organization_id>/unified_messaging",status="200"} 2');
  });

  it('counts the calls a gateway proxied, by client, method, template and status', async () => {
    const up = await recordingUpstream();
    const tg = await proxyGateway(up.url);
    const list = `/api/v5/orgs/${PROXY_ORG}/unified_messaging`;
    for (let i = 0; i < 3; i++) expect((await tg.call('GET', list, undefined, proxyAuth)).status).toBe(200);
    const text = (await tg.call('GET', '/metrics')).text;
    const series = 'client="crm",method="GET",template="/api/v5/orgs/<organization_id>/unified_messaging",status="200"';
    expect(metricValue(text, `threadgate_proxy_request_seconds_count{${series}}`)).toBe(3);
    expect(metricValue(text, `threadgate_proxy_request_seconds_bucket{le="+Inf",${series}}`)).toBe(3);
  });
});
