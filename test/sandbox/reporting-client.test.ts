/**
 * The typed platform client pointed at the sandbox drives every workflow
 * reporting and event listing endpoint of spec 02 with no special cases:
 * JSON answers parse with the response schemas, downloads come back as
 * PlatformDownload, and errors as PlatformHttpError with status and detail.
 */
import { parse } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import { describe, expect, it } from 'vitest';
import { RAW_COLUMNS } from '../../src/platform/schemas/workflow-reporting.ts';
import { DAY_START, startReportingSandbox, wholeDay } from './reporting-support.ts';
import { platformClientFor, rejection } from './typed-client.ts';

describe('typed client against the sandbox: workflow reporting', () => {
  it('reads step rows, source data, both downloads in both formats, and the info', async () => {
    const sb = await startReportingSandbox();
    await sb.seedEvents({ workflow_id: sb.workflow.id, step_index: 1, events: [{ timestamp: '2026-03-01T08:00:00Z', label: 'view-1', dim3: 'Hello' }] });
    await sb.seedEvents({ workflow_id: sb.workflow.id, events: [{ timestamp: '2026-03-01T09:00:00Z', label: 'goal-1' }] });
    const client = platformClientFor(sb);
    const params = { workflow_id: sb.workflow.id };
    const body = { filters: [], interval: wholeDay().interval };

    const step = await client.getWorkflowStepRows({ params: { ...params, step_index: 1 }, body: { ...body, basic: true } });
    expect(step.data).toEqual([expect.objectContaining({ 'View title': 'Hello', 'Date & Time': '2026-03-01T08:00:00.000Z' })]);
    const source = await client.getWorkflowSourceData({ params, body: { ...body, target: 'affected_goal' } });
    expect(source.data.map((r) => r.label)).toEqual(['goal-1']);

    const csv = await client.downloadWorkflowStepRows({ params: { ...params, step_index: 1 }, body: { ...body, format: 'csv' } });
    expect(csv.contentType).toBe('text/csv');
    expect(csv.filename).toBe(`workflow_${sb.workflow.id}_step_1.csv`);
    expect((parse(await csv.text()) as string[][])[0]).toEqual([...RAW_COLUMNS]);

    const xlsx = await client.downloadWorkflowSourceData({ params, body: { ...body, format: 'xlsx' } });
    expect(xlsx.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(xlsx.filename).toBe(`workflow_${sb.workflow.id}_source_data.xlsx`);
    const sheet = await readSheet(Buffer.from(await xlsx.bytes()));
    expect(sheet[1]![RAW_COLUMNS.indexOf('label')]).toBe('goal-1');

    const info = await client.getWorkflowInfo({ params });
    expect(info).toMatchObject({ id: sb.workflow.id, org_id: sb.organizationId, start_date: DAY_START.slice(0, 10) });
  });

  it('surfaces the documented errors as PlatformHttpError: 404, 406, 403', async () => {
    const sb = await startReportingSandbox({ steps: 1 });
    const client = platformClientFor(sb);
    const body = { filters: [], interval: wholeDay().interval };

    const missing = await rejection(client.getWorkflowStepRows({ params: { workflow_id: sb.workflow.id, step_index: 2 }, body }));
    expect(missing.status).toBe(404);
    const notImplemented = await rejection(
      client.getWorkflowStepRows({ params: { workflow_id: sb.workflow.id, step_index: 1 }, body: { ...body, filters: [{ property: 'action', values: ['x'], op: 'in' }] } }),
    );
    expect(notImplemented.status).toBe(406);
    expect(notImplemented.detail).toMatch(/not implemented/);

    await sb.call('POST', '/_sandbox/reporting-access', { subscription_active: false });
    const forbidden = await rejection(client.getWorkflowInfo({ params: { workflow_id: sb.workflow.id } }));
    expect(forbidden.status).toBe(403);
  });
});

describe('typed client against the sandbox: event listing', () => {
  it('lists event types, walks generic events page by page with the cursor, and lists message events', async () => {
    const sb = await startReportingSandbox();
    const events = Array.from({ length: 260 }, (_, i) => ({ collector_created_at: new Date(Date.parse(DAY_START) + i * 1000).toISOString(), vendor: 'shop', category: 'cart', action: i % 2 ? 'add' : 'remove' }));
    await sb.call('POST', '/_sandbox/reporting-events', { events });
    await sb.call('POST', '/_sandbox/message-events', { events: [{ collector_created_at: DAY_START, message_id: 'm-1', case_id: 'c-1' }] });
    const client = platformClientFor(sb);

    const types = await client.listEventTypes({ body: {} });
    expect(types.results).toEqual([
      { vendor: 'shop', category: 'cart', action: 'add' },
      { vendor: 'shop', category: 'cart', action: 'remove' },
    ]);

    const first = await client.listEvents({ body: { start: wholeDay().interval.start, end: wholeDay().interval.end } });
    expect(first.results).toHaveLength(250);
    const second = await client.listEvents({ body: { cursor: first.next_cursor as string } });
    expect(second.results).toHaveLength(10);
    expect(second.next_cursor).toBeNull();

    const messages = await client.listMessageEvents({ body: { ...wholeDay().interval, include_case: true } });
    expect(messages.results).toEqual([expect.objectContaining({ message_id: 'm-1', case: { id: 'c-1' } })]);

    const foreign = (await sb.info()).foreign_organization_id;
    const denied = await rejection(client.listEvents({ params: { organization_id: foreign }, body: wholeDay().interval }));
    expect(denied.status).toBe(403);
  });
});
