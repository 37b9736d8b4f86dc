/**
 * Workflow reporting JSON rows (spec 02, "Workflow row data" and "Workflow
 * reporting"): raw columns in the documented order, basic human-readable
 * columns, UTC datetimes with tz, interval, filters, step_data actions,
 * target and limit; and the workflow info.
 */
import { describe, expect, it } from 'vitest';
import {
  BASIC_OUTER_GOAL_COLUMNS,
  BASIC_STEP_COLUMNS,
  RAW_COLUMNS,
  RawWorkflowRow,
  WorkflowInfo,
  WorkflowRows,
} from '../../src/platform/schemas/workflow-reporting.ts';
import { startReportingSandbox, wholeDay } from './reporting-support.ts';

describe('workflow step rows', () => {
  it('answers raw columns in the documented order, the event time keyed timestamp as a UTC datetime; unset values null', async () => {
    const sb = await startReportingSandbox();
    await sb.seedEvents({
      workflow_id: sb.workflow.id,
      step_index: 1,
      events: [{ timestamp: '2026-03-01T10:00:00+02:00', label: 'view-a', properties: ['k=v'], value: 2.5, event_version: 3, browser_name: 'Firefox' }],
    });

    const res = await sb.call('POST', `${sb.base}/step/1`, wholeDay());
    expect(res.status).toBe(200);
    const rows = WorkflowRows.parse(res.body);
    expect(rows.fields.map((f) => f.name)).toEqual([...RAW_COLUMNS]);
    expect(rows.fields[0]).toEqual({ name: 'timestamp', type: 'datetime', tz: 'UTC' });
    expect(rows.fields.find((f) => f.name === 'value')?.type).toBe('number');
    expect(rows.data).toHaveLength(1);
    const row = RawWorkflowRow.parse(rows.data[0]);
    expect(Object.keys(rows.data[0]!)).toEqual([...RAW_COLUMNS]);
    expect(row).toMatchObject({
      timestamp: '2026-03-01T08:00:00.000Z',
      label: 'view-a',
      properties: ['k=v'],
      value: 2.5,
      event_version: 3,
      browser_name: 'Firefox',
      organization_id: sb.organizationId,
      dim5: null,
      partner_organization_ids: null,
    });
  });

  it('basic: true answers the human-readable step columns, Date & Time first (datetime, UTC)', async () => {
    const sb = await startReportingSandbox();
    await sb.seedEvents({
      workflow_id: sb.workflow.id,
      step_index: 2,
      events: [{ timestamp: '2026-03-01T09:30:00Z', dim3: 'Welcome view', browser_name: 'Safari', device_type: 'mobile', geo_city: 'Oulu', geo_country: 'FI', ip_organization: 'ISP Oy', os_name: 'iOS', session_id: 's-1', visitor_id: 'v-1' }],
    });

    const rows = WorkflowRows.parse((await sb.call('POST', `${sb.base}/step/2`, { ...wholeDay(), basic: true })).body);
    expect(rows.fields.map((f) => f.name)).toEqual([...BASIC_STEP_COLUMNS]);
    expect(rows.fields[0]).toEqual({ name: 'Date & Time', type: 'datetime', tz: 'UTC' });
    expect(rows.fields.slice(1).every((f) => f.type === 'string')).toBe(true);
    expect(rows.data).toEqual([
      {
        'Date & Time': '2026-03-01T09:30:00.000Z',
        'View title': 'Welcome view',
        Browser: 'Safari',
        Device: 'mobile',
        City: 'Oulu',
        Country: 'FI',
        'ISP or organisation': 'ISP Oy',
        'OS (operating system)': 'iOS',
        'Interaction Workflow ID': sb.workflow.id,
        'Workflow Session ID': 's-1',
        'Visitor ID': 'v-1',
      },
    ]);
  });

  it('keeps events inside the interval (start inclusive, end exclusive), in time order, and limit cuts the rows', async () => {
    const sb = await startReportingSandbox();
    const at = (t: string, label: string) => ({ timestamp: t, label });
    await sb.seedEvents({
      workflow_id: sb.workflow.id,
      step_index: 1,
      events: [at('2026-03-01T12:00:00Z', 'c'), at('2026-03-01T00:00:00Z', 'a'), at('2026-03-02T00:00:00Z', 'next-day'), at('2026-03-01T06:00:00Z', 'b')],
    });
    const labels = async (body: object) =>
      ((await sb.call('POST', `${sb.base}/step/1`, body)).body.data as { label: string }[]).map((r) => r.label);

    expect(await labels(wholeDay())).toEqual(['a', 'b', 'c']);
    expect(await labels({ ...wholeDay(), limit: 2 })).toEqual(['a', 'b']);
    expect(await labels({ ...wholeDay(), interval: { start: '2026-03-01T06:00:00Z', end: '2026-03-03T00:00:00Z' } })).toEqual(['b', 'c', 'next-day']);
  });

  it('filters on a raw column by any of the values, and on list columns by any entry', async () => {
    const sb = await startReportingSandbox();
    await sb.seedEvents({
      workflow_id: sb.workflow.id,
      step_index: 1,
      events: [
        { timestamp: '2026-03-01T01:00:00Z', action: 'view', label: 'one', properties: ['room_id=r1'] },
        { timestamp: '2026-03-01T02:00:00Z', action: 'click', label: 'two', properties: ['room_id=r2'] },
        { timestamp: '2026-03-01T03:00:00Z', action: 'close', label: 'three' },
      ],
    });
    const labels = async (filters: unknown[]) =>
      ((await sb.call('POST', `${sb.base}/step/1`, { ...wholeDay(), filters })).body.data as { label: string }[]).map((r) => r.label);

    expect(await labels([{ property: 'action', values: ['view', 'close'] }])).toEqual(['one', 'three']);
    expect(await labels([{ property: 'properties', values: ['room_id=r2'] }])).toEqual(['two']);
    expect(await labels([{ property: 'action', values: ['view', 'click'] }, { property: 'label', values: ['two'] }])).toEqual(['two']);
  });

  it('step_data actions keep the view_uid values of interaction workflows (label) and page_url values of web navigation (dim1); user-generated ignores them', async () => {
    const sb = await startReportingSandbox({ type: 'interaction' });
    const web = await sb.createWorkflow({ type: 'giosg-default' });
    const custom = await sb.createWorkflow({ type: 'user-generated' });
    const events = [
      { timestamp: '2026-03-01T01:00:00Z', label: 'view-1', dim1: 'https://shop.example/a' },
      { timestamp: '2026-03-01T02:00:00Z', label: 'view-2', dim1: 'https://shop.example/b' },
    ];
    for (const id of [sb.workflow.id, web.id, custom.id]) await sb.seedEvents({ workflow_id: id, step_index: 1, events });
    const labels = async (workflowId: string, actions: string[]) => {
      const body = { ...wholeDay(), step_data: [{}, { actions }] };
      const res = await sb.call('POST', `/api/reporting/workflow/v1/orgs/${sb.organizationId}/workflows/${workflowId}/step/1`, body);
      return (res.body.data as { label: string }[]).map((r) => r.label);
    };

    expect(await labels(sb.workflow.id, ['view-2'])).toEqual(['view-2']);
    expect(await labels(web.id, ['https://shop.example/a'])).toEqual(['view-1']);
    expect(await labels(custom.id, ['nothing-matches'])).toEqual(['view-1', 'view-2']);
  });

  it('target default answers the step’s events without goal triggers; triggered_goal answers only its goal triggers', async () => {
    const sb = await startReportingSandbox();
    await sb.seedEvents({
      workflow_id: sb.workflow.id,
      step_index: 1,
      events: [
        { timestamp: '2026-03-01T01:00:00Z', category: 'interaction', action: 'view', label: 'seen' },
        { timestamp: '2026-03-01T02:00:00Z', category: 'goal', action: 'trigger', label: 'goal-1' },
      ],
    });
    await sb.seedEvents({ workflow_id: sb.workflow.id, step_index: 2, events: [{ timestamp: '2026-03-01T03:00:00Z', label: 'other-step' }] });
    const labels = async (target?: string) =>
      ((await sb.call('POST', `${sb.base}/step/1`, { ...wholeDay(), ...(target ? { target } : {}) })).body.data as { label: string }[]).map((r) => r.label);

    expect(await labels()).toEqual(['seen']);
    expect(await labels('default')).toEqual(['seen']);
    expect(await labels('triggered_goal')).toEqual(['goal-1']);
  });
});

describe('workflow source data (outer goal events)', () => {
  async function seedGoals() {
    const sb = await startReportingSandbox();
    const goal = (t: string, label: string) => ({
      timestamp: t, label, dim1: 'https://shop.example/cart', dim2: 'Cart', dim3: 'Offer view', dim4: 'interaction-9',
      properties: ['room_id=r1', 'room_id=r2'], session_id: 's-9', visitor_id: 'v-9',
    });
    await sb.seedEvents({ workflow_id: sb.workflow.id, events: [goal('2026-03-01T05:00:00Z', 'goal-related')] });
    await sb.seedEvents({ events: [goal('2026-03-01T06:00:00Z', 'goal-unrelated')] });
    await sb.seedEvents({ workflow_id: sb.workflow.id, step_index: 1, events: [{ timestamp: '2026-03-01T07:00:00Z', label: 'step-event' }] });
    return sb;
  }

  it('raw rows: category goal, action trigger, label the goal ID, dim1/dim2 page URL and title, properties the room_id entries', async () => {
    const sb = await seedGoals();
    const rows = WorkflowRows.parse((await sb.call('POST', `${sb.base}/source_data`, wholeDay())).body);
    expect(rows.fields.map((f) => f.name)).toEqual([...RAW_COLUMNS]);
    expect(rows.data).toHaveLength(1);
    expect(rows.data[0]).toMatchObject({
      category: 'goal', action: 'trigger', label: 'goal-related', dim1: 'https://shop.example/cart', dim2: 'Cart',
      properties: ['room_id=r1', 'room_id=r2'],
    });
  });

  it('target affected_goal (default) answers goals related to the workflow; affected_goal_total every goal trigger', async () => {
    const sb = await seedGoals();
    const labels = async (target?: string) =>
      ((await sb.call('POST', `${sb.base}/source_data`, { ...wholeDay(), ...(target ? { target } : {}) })).body.data as { label: string }[]).map((r) => r.label);
    expect(await labels('affected_goal')).toEqual(['goal-related']);
    expect(await labels('affected_goal_total')).toEqual(['goal-related', 'goal-unrelated']);
    // outer-goal filtering uses property label with goal UUIDs
    const filtered = await sb.call('POST', `${sb.base}/source_data`, { ...wholeDay(), target: 'affected_goal_total', filters: [{ property: 'label', values: ['goal-unrelated'] }] });
    expect(filtered.body.data.map((r: { label: string }) => r.label)).toEqual(['goal-unrelated']);
  });

  it('basic: true answers the outer-goal columns and a list column Interaction ID / Room IDs on each row', async () => {
    const sb = await seedGoals();
    const rows = WorkflowRows.parse((await sb.call('POST', `${sb.base}/source_data`, { ...wholeDay(), basic: true })).body);
    expect(rows.fields.map((f) => f.name)).toEqual([...BASIC_OUTER_GOAL_COLUMNS]);
    expect(rows.fields[0]).toMatchObject({ type: 'datetime', tz: 'UTC' });
    expect(rows.data[0]).toMatchObject({
      'Date & Time': '2026-03-01T05:00:00.000Z',
      'Goal ID': 'goal-related',
      'View title': 'Offer view',
      'Page title': 'Cart',
      'Page URL': 'https://shop.example/cart',
      'Interaction ID': 'interaction-9',
      'Visitor ID': 'v-9',
      'Session ID': 's-9',
      'Interaction ID / Room IDs': ['room_id=r1', 'room_id=r2'],
    });
  });
});

describe('workflow info', () => {
  it('answers the workflow resource with the dates of its first and last event', async () => {
    const sb = await startReportingSandbox({ type: 'user-generated', name: 'Checkout', description: 'Cart to purchase', is_published: false });
    await sb.seedEvents({ workflow_id: sb.workflow.id, step_index: 1, events: [{ timestamp: '2026-02-27T23:00:00Z' }, { timestamp: '2026-03-04T01:00:00Z' }] });

    const res = await sb.call('GET', `${sb.base}/info/`);
    expect(res.status).toBe(200);
    expect(WorkflowInfo.parse(res.body)).toEqual({
      id: sb.workflow.id,
      org_id: sb.organizationId,
      type: 'user-generated',
      name: 'Checkout',
      description: 'Cart to purchase',
      modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      is_published: false,
      start_date: '2026-02-27',
      end_date: '2026-03-04',
    });
  });
});
