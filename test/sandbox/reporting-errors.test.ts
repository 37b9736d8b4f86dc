/**
 * Every documented error of the workflow reporting endpoints (spec 02,
 * Errors): 401 without credentials, 403 without a subscription, access to the
 * organization or the reporting permission, 404 for data not found, 400 for
 * a bad payload (keyed by field name), 406 for filters not implemented, 500
 * for an unexpected error in the query.
 */
import { describe, expect, it } from 'vitest';
import { startReportingSandbox, wholeDay, workflowBase } from './reporting-support.ts';

const ROW_ENDPOINTS = ['/step/1', '/step/1/download/', '/source_data', '/source_data/download/'] as const;

describe('workflow reporting errors', () => {
  it('401 without credentials or with an unknown token, on every endpoint', async () => {
    const sb = await startReportingSandbox();
    for (const suffix of ROW_ENDPOINTS) {
      expect((await sb.call('POST', `${sb.base}${suffix}`, wholeDay(), { authorization: null })).status).toBe(401);
      expect((await sb.call('POST', `${sb.base}${suffix}`, wholeDay(), { authorization: 'Token nope' })).status).toBe(401);
    }
    expect((await sb.call('GET', `${sb.base}/info/`, undefined, { authorization: null })).status).toBe(401);
  });

  it('403 without an active subscription, and again 200 once it is active', async () => {
    const sb = await startReportingSandbox();
    await sb.call('POST', '/_sandbox/reporting-access', { subscription_active: false });
    const denied = await sb.call('POST', `${sb.base}/step/1`, wholeDay());
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/subscription/);
    expect((await sb.call('GET', `${sb.base}/info/`)).status).toBe(403);

    await sb.call('POST', '/_sandbox/reporting-access', { subscription_active: true });
    expect((await sb.call('POST', `${sb.base}/step/1`, wholeDay())).status).toBe(200);
  });

  it('403 for a token without the reporting permission; other tokens keep theirs', async () => {
    const sb = await startReportingSandbox();
    const other = (await sb.call('POST', '/_sandbox/tokens', { scopes: [] })).body.token as string;
    await sb.call('POST', '/_sandbox/reporting-access', { token: other, reporting_permission: false });

    const denied = await sb.call('POST', `${sb.base}/source_data`, wholeDay(), { authorization: `Token ${other}` });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toMatch(/reporting permission/);
    expect((await sb.call('POST', `${sb.base}/source_data`, wholeDay())).status).toBe(200);
  });

  it('403 for a token whose own permissions lack the subscription, organization access or reports', async () => {
    const sb = await startReportingSandbox();
    for (const permission of ['subscription', 'organization_access', 'reports']) {
      const token = (await sb.call('POST', '/_sandbox/tokens', { scopes: [] })).body.token as string;
      const set = await sb.call('PUT', `/_sandbox/tokens/${token}/permissions`, { [permission]: false });
      expect(set.status).toBe(200);
      const res = await sb.call('POST', `${sb.base}/step/1`, wholeDay(), { authorization: `Token ${token}` });
      expect({ permission, status: res.status }).toEqual({ permission, status: 403 });
    }
  });

  it('403 for another organization’s path (no access to the organization)', async () => {
    const sb = await startReportingSandbox();
    const info = await sb.info();
    const foreign = await sb.createWorkflow({ organization_id: info.foreign_organization_id });
    const res = await sb.call('GET', `${workflowBase(info.foreign_organization_id, foreign.id)}/info/`);
    expect(res.status).toBe(403);
  });

  it('404 for an unknown workflow, a workflow of another organization under ours, and a step beyond the workflow', async () => {
    const sb = await startReportingSandbox({ steps: 2 });
    const info = await sb.info();
    const foreign = await sb.createWorkflow({ organization_id: info.foreign_organization_id });
    const unknown = workflowBase(sb.organizationId, '00000000-0000-4000-8000-000000000000');
    for (const suffix of ROW_ENDPOINTS) expect((await sb.call('POST', `${unknown}${suffix}`, wholeDay())).status).toBe(404);
    expect((await sb.call('GET', `${unknown}/info/`)).status).toBe(404);
    expect((await sb.call('GET', `${workflowBase(sb.organizationId, foreign.id)}/info/`)).status).toBe(404);

    const beyond = await sb.call('POST', `${sb.base}/step/3`, wholeDay());
    expect(beyond.status).toBe(404);
    expect(beyond.body.detail).toMatch(/Step 3/);
    expect((await sb.call('POST', `${sb.base}/step/3/download/`, wholeDay())).status).toBe(404);
  });

  it('400 keyed by field name for a bad payload or step index', async () => {
    const sb = await startReportingSandbox();
    const step = `${sb.base}/step/1`;
    const cases: [string, unknown, Record<string, unknown>][] = [
      [step, { interval: wholeDay().interval }, { filters: ['This field is required.'] }],
      [step, { filters: [] }, { interval: ['This field is required.'] }],
      [step, { ...wholeDay(), interval: { start: 'yesterday', end: wholeDay().interval.end } }, { 'interval.start': [expect.stringMatching(/ISO 8601/)] }],
      [step, { ...wholeDay(), interval: { start: '2026-03-02T00:00:00Z', end: '2026-03-01T00:00:00Z' } }, { interval: [expect.any(String)] }],
      [step, { ...wholeDay(), limit: 0 }, { limit: [expect.stringMatching(/greater than or equal to 1/)] }],
      [step, { ...wholeDay(), target: 'affected_goal' }, { target: ['Must be one of default, triggered_goal.'] }],
      [`${sb.base}/source_data`, { ...wholeDay(), target: 'triggered_goal' }, { target: ['Must be one of affected_goal, affected_goal_total.'] }],
      [step, { ...wholeDay(), format: 'csv' }, { format: ['Unknown field.'] }],
      [`${sb.base}/step/1/download/`, { ...wholeDay(), basic: true }, { basic: ['Unknown field.'] }],
      [`${sb.base}/step/0`, wholeDay(), { step_index: ['Must be a positive integer.'] }],
      [`${sb.base}/step/first`, wholeDay(), { step_index: ['Must be a positive integer.'] }],
    ];
    for (const [path, body, errors] of cases) {
      const res = await sb.call('POST', path, body);
      expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
      expect(res.body).toEqual(errors);
    }
  });

  it('406 for filtering with something not implemented: an unknown key, an unfilterable property, non-text values', async () => {
    const sb = await startReportingSandbox();
    const filters = [
      [{ property: 'action', values: ['view'], operator: 'contains' }],
      [{ property: 'timestamp', values: ['2026-03-01'] }],
      [{ property: 'no_such_column', values: ['x'] }],
      [{ property: 'action', values: [{ gt: 1 }] }],
    ];
    for (const f of filters) {
      for (const suffix of ROW_ENDPOINTS) {
        const res = await sb.call('POST', `${sb.base}${suffix}`, { ...wholeDay(), filters: f });
        expect(res.status).toBe(406);
        expect(res.body.detail).toMatch(/not implemented/);
      }
    }
  });

  it('checks in the documented order: payload 400, then filters 406, then a step beyond the workflow 404', async () => {
    const sb = await startReportingSandbox({ steps: 2 });
    const badFilter = [{ property: 'no_such_column', values: ['x'] }];
    const reversed = { start: '2026-03-02T00:00:00Z', end: '2026-03-01T00:00:00Z' };
    for (const suffix of ['/step/3', '/step/3/download/']) {
      const path = `${sb.base}${suffix}`;
      // A bad filter and a step past the end: the filter's 406 comes first.
      const filtered = await sb.call('POST', path, { ...wholeDay(), filters: badFilter });
      expect({ suffix, status: filtered.status }).toEqual({ suffix, status: 406 });
      expect(filtered.body.detail).toMatch(/not implemented/);
      // A bad interval (payload), a bad filter and a step past the end: the payload's 400 comes first.
      const payload = await sb.call('POST', path, { filters: badFilter, interval: reversed });
      expect({ suffix, status: payload.status }).toEqual({ suffix, status: 400 });
      expect(Object.keys(payload.body)).toEqual(['interval']);
      // With a good payload, the step is the one problem left.
      expect((await sb.call('POST', path, wholeDay())).status).toBe(404);
    }
  });

  it('500 for an unexpected error in the query (a workflow seeded with fail_queries)', async () => {
    const sb = await startReportingSandbox({ fail_queries: true });
    for (const suffix of ROW_ENDPOINTS) {
      const res = await sb.call('POST', `${sb.base}${suffix}`, wholeDay());
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ detail: 'Unexpected error in the query.' });
    }
    expect((await sb.call('GET', `${sb.base}/info/`)).status).toBe(200);
  });
});
