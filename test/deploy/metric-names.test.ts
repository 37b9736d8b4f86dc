/**
 * Every metric the alerts (deploy/prometheus/alerts.yml) and the dashboard
 * (deploy/grafana/threadgate.json) read is one a real gateway exports, with
 * series, and with the labels their matchers name: a gateway with a
 * connector and the proxy on is taken through a message in, an agent reply
 * and a reply suggestion out, a refused webhook, a proxied call and a
 * platform outage, then scraped. A renamed metric or label fails here, not
 * silently on a dashboard. The name reader itself is tested below it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../sandbox/support.ts';
import { RECORDER_MODULE, startTestGateway, type TestGateway } from '../support/gateway.ts';
import { startOutageProxy } from '../support/outage-proxy.ts';
import { until } from '../support/wait.ts';
import { alertRules, readDeploy } from './deploy-files.ts';
import { familyOf, metricRefs, problemsOf, scrapedFamilies, variableRefs, type MetricRef } from './promql-names.ts';

interface Dashboard {
  schemaVersion: number;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: { id: number; title: string; datasource?: { uid: string }; targets?: { expr: string }[] }[];
  templating: { list: { query: string | { query: string } }[] };
}
const dashboard = JSON.parse(readDeploy('grafana', 'threadgate.json')) as Dashboard;
const dashboardRefs = (): MetricRef[] => [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricRefs(t.expr))),
  ...dashboard.templating.list.flatMap((v) => variableRefs(typeof v.query === 'string' ? v.query : v.query.query)),
];
const PROXY_KEY = 'metric-names-proxy-key-0123456789';

/** A gateway that has done a little of everything the alerts and the dashboard watch. */
async function exercisedGateway(): Promise<TestGateway> {
  const sandbox = await startTestSandbox({ retryBaseMs: 20 });
  const outage = await startOutageProxy(sandbox.url);
  const tg = await startTestGateway({
    connectors: [{ name: 'desk', type: 'recorder', module: RECORDER_MODULE, skip_suggestions: true }],
    sandbox,
    platformUrl: outage.url,
    platformProbeMs: 200,
    settings: {
      proxy: {
        clients: [{ name: 'crm', key_sha256: createHash('sha256').update(PROXY_KEY).digest('hex'), allow: [{ methods: ['GET'], paths: ['/api/v5/orgs/<organization_id>/*'] }] }],
      },
    },
  });
  await until(async () => (await tg.call('GET', '/readyz')).status === 200, 10_000, 'registered');
  expect((await tg.call('POST', '/connectors/desk/submit', { threadKey: 'T', messageId: 'm1', senderId: 'a@b.c', body: 'hi' })).status).toBe(202);
  await until(async () => (await tg.gateway.store.read.threads.byKey('desk', 'T'))?.chatId != null, 5_000, 'a chat');
  const chatId = (await tg.gateway.store.read.threads.byKey('desk', 'T'))!.chatId!;
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/agent_messages`, { text: 'ok' });
  await tg.sandbox.call('POST', `/_sandbox/chats/${chatId}/reply_suggestions`, { suggestion: 'Say sorry' });
  await until(async () => {
    const counts = await tg.gateway.store.read.deliveries.countByStatus('desk');
    return counts.delivered === 1 && counts.skipped === 1;
  }, 5_000, 'a delivery and a skipped suggestion');
  await tg.call('POST', '/webhooks/desk', '{}', { 'content-type': 'application/json' }); // unsigned: rejected
  await tg.call('GET', `/api/v5/orgs/${sandbox.organizationId}/unified_messaging/configurations`, undefined, { authorization: `Bearer ${PROXY_KEY}` });
  outage.mode = '503'; // the idle probe meets it: a failed platform request, counted by its error code
  await until(async () => (await tg.call('GET', '/metrics')).text.includes('threadgate_platform_request_errors_total{'), 5_000, 'a platform error');
  outage.mode = 'up';
  return tg;
}

describe('the metrics deploy/ reads', () => {
  it('are exported by a gateway that did a little of everything, with series and the labels named', { timeout: 60_000 }, async () => {
    const tg = await exercisedGateway();
    const families = scrapedFamilies((await tg.call('GET', '/metrics')).text);
    const alerts = alertRules().flatMap((r) => metricRefs(r.expr));
    const panels = dashboardRefs();
    expect(alerts.length).toBeGreaterThan(10);
    expect(panels.length).toBeGreaterThan(20);
    expect(problemsOf(alerts, families), 'alerts.yml').toEqual([]);
    expect(problemsOf(panels, families), 'threadgate.json').toEqual([]);
  });
});

describe('the dashboard', () => {
  it('is a Grafana dashboard on a ${DS_PROMETHEUS} input, with the panels the issue asks for', () => {
    const d = dashboard;
    expect(d.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(d.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    const withTargets = d.panels.filter((p) => p.targets !== undefined);
    expect(withTargets.map((p) => p.datasource?.uid).filter((uid) => uid !== '${DS_PROMETHEUS}')).toEqual([]);
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    const reads = (metric: string) => withTargets.some((p) => p.targets!.some((t) => t.expr.includes(metric)));
    for (const metric of ['threadgate_inbound_submitted_total', 'threadgate_job_runs_total', 'threadgate_webhooks_received_total', 'threadgate_dead_letters',
      'threadgate_jobs_oldest_due_seconds', 'threadgate_platform_request_seconds_bucket', 'threadgate_platform_request_errors_total',
      'threadgate_proxy_request_seconds_bucket', 'threadgate_http_responses_total', 'threadgate_connector_up']) {
      expect(reads(metric), metric).toBe(true);
    }
  });
});

describe('metricRefs', () => {
  it('reads names and matcher labels, not functions, keywords, grouping labels, strings, ranges or variables', () => {
    const expr = `histogram_quantile(0.95, sum by (le, template) (rate(a_seconds_bucket{status=~"5..", route!="x{y}"}[$__rate_interval])))
      / ignoring (le) group_left sum without (pod) (b_total offset 15m) > bool 1e3 unless on () c # d_in_a_comment
      or max(label_replace(e, "dst", "$1", "src", "(f_.*)")) and g{job="$job"}`;
    expect(metricRefs(expr)).toEqual([
      { name: 'a_seconds_bucket', labels: ['status', 'route'] },
      { name: 'b_total', labels: [] },
      { name: 'c', labels: [] },
      { name: 'e', labels: [] },
      { name: 'g', labels: ['job'] },
    ]);
  });

  it('refuses a selector without a name instead of missing it', () => {
    expect(() => metricRefs('sum({__name__="x"})')).toThrow(/without a metric name/);
  });

  it('reads the metric and the label of a Grafana label_values query', () => {
    expect(variableRefs('label_values(up_total{job="a"}, connector)')).toEqual([{ name: 'up_total', labels: ['job', 'connector'] }]);
  });
});

describe('scrapedFamilies and problemsOf', () => {
  const families = scrapedFamilies(
    [
      '# HELP h_seconds x', '# TYPE h_seconds histogram', 'h_seconds_bucket{le="1",kind="a"} 1', 'h_seconds_sum{kind="a"} 1', 'h_seconds_count{kind="a"} 1',
      '# HELP c_total x', '# TYPE c_total counter', 'c_total{connector="desk"} 2',
      '# HELP g x', '# TYPE g gauge',
    ].join('\n') + '\n',
  );

  it('finds a histogram by its suffixed series only', () => {
    expect(familyOf(families, 'h_seconds_bucket')).toEqual({ family: 'h_seconds', type: 'histogram' });
    expect(familyOf(families, 'h_seconds_count')).toEqual({ family: 'h_seconds', type: 'histogram' });
    expect(familyOf(families, 'h_seconds')).toBeUndefined();
    expect(familyOf(families, 'c_total')).toEqual({ family: 'c_total', type: 'counter' });
  });

  it('names a metric not exported, one without series and a label never seen', () => {
    const refs = [
      { name: 'h_seconds_bucket', labels: ['kind', 'le', 'instance'] },
      { name: 'c_total', labels: ['connectr'] },
      { name: 'g', labels: [] },
      { name: 'missing_total', labels: [] },
      { name: 'h_seconds', labels: [] },
    ];
    expect(problemsOf(refs, families)).toEqual(['c_total: no label connectr', 'g: no series in the scrape', 'missing_total: not exported', 'h_seconds: not exported']);
  });
});
