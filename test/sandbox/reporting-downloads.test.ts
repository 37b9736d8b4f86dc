/**
 * Workflow reporting downloads (spec 02): CSV and XLSX files with the
 * documented Content-Type and a filename in Content-Disposition, the raw
 * columns in order, read back with a standard CSV parser and XLSX reader;
 * an invalid format answers 400 keyed by the field name.
 */
import { parse } from 'csv-parse/sync';
import { readSheet } from 'read-excel-file/node';
import { describe, expect, it } from 'vitest';
import { RAW_COLUMNS } from '../../src/platform/schemas/workflow-reporting.ts';
import { startReportingSandbox, wholeDay, type ReportingSandbox } from './reporting-support.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function seeded(): Promise<ReportingSandbox> {
  const sb = await startReportingSandbox();
  await sb.seedEvents({
    workflow_id: sb.workflow.id,
    step_index: 1,
    events: [
      { timestamp: '2026-03-01T08:15:00Z', label: 'view-1', properties: ['a=1', 'b=2'], value: 4, visitor_id: 'v-1', dim1: 'Hello, "world"' },
      { timestamp: '2026-03-01T09:45:30Z', label: 'view-2' },
    ],
  });
  await sb.seedEvents({ workflow_id: sb.workflow.id, events: [{ timestamp: '2026-03-01T10:00:00Z', label: 'goal-1', properties: ['room_id=r1'] }] });
  return sb;
}

const filenameOf = (disposition: unknown) => /filename="([^"]+)"/.exec(String(disposition))?.[1];

describe('workflow downloads', () => {
  it('CSV (the default): text/csv, a .csv filename, one header row of the raw columns, every row every column, empty where unset', async () => {
    const sb = await seeded();
    const res = await sb.download(`${sb.base}/step/1/download/`, wholeDay());
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/csv/);
    expect(String(res.headers['content-disposition'])).toMatch(/^attachment;/);
    expect(filenameOf(res.headers['content-disposition'])).toBe(`workflow_${sb.workflow.id}_step_1.csv`);

    const records = parse(res.bytes.toString('utf8')) as string[][];
    expect(records[0]).toEqual([...RAW_COLUMNS]);
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.length === RAW_COLUMNS.length)).toBe(true);
    const rows = parse(res.bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
    expect(rows[0]).toMatchObject({ timestamp: '2026-03-01T08:15:00.000Z', label: 'view-1', properties: 'a=1, b=2', value: '4', dim1: 'Hello, "world"' });
    expect(rows[1]).toMatchObject({ timestamp: '2026-03-01T09:45:30.000Z', label: 'view-2', properties: '', value: '', visitor_id: '' });
  });

  it('XLSX: the spreadsheet content type, a .xlsx filename, a workbook a standard reader opens with the same rows', async () => {
    const sb = await seeded();
    const res = await sb.download(`${sb.base}/step/1/download/`, { ...wholeDay(), format: 'xlsx' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(XLSX);
    expect(filenameOf(res.headers['content-disposition'])).toBe(`workflow_${sb.workflow.id}_step_1.xlsx`);

    const sheet = await readSheet(res.bytes);
    expect(sheet[0]).toEqual([...RAW_COLUMNS]);
    expect(sheet).toHaveLength(3);
    const column = (name: string) => RAW_COLUMNS.indexOf(name as (typeof RAW_COLUMNS)[number]);
    const first = sheet[1]!;
    expect(first[column('timestamp')]).toEqual(new Date('2026-03-01T08:15:00Z'));
    expect(first[column('label')]).toBe('view-1');
    expect(first[column('properties')]).toBe('a=1, b=2');
    expect(first[column('value')]).toBe(4);
    expect(sheet[2]![column('label')]).toBe('view-2');
    expect(sheet[2]![column('value')]).toBeNull();
  });

  it('source data downloads carry the outer goal events, as CSV and as XLSX', async () => {
    const sb = await seeded();
    const csv = await sb.download(`${sb.base}/source_data/download/`, { ...wholeDay(), format: 'csv' });
    expect(filenameOf(csv.headers['content-disposition'])).toBe(`workflow_${sb.workflow.id}_source_data.csv`);
    const rows = parse(csv.bytes.toString('utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.category, r.action, r.label, r.properties])).toEqual([['goal', 'trigger', 'goal-1', 'room_id=r1']]);

    const xlsx = await sb.download(`${sb.base}/source_data/download/`, { ...wholeDay(), format: 'xlsx', limit: 1 });
    expect(xlsx.headers['content-type']).toBe(XLSX);
    expect(filenameOf(xlsx.headers['content-disposition'])).toBe(`workflow_${sb.workflow.id}_source_data.xlsx`);
    const sheet = await readSheet(xlsx.bytes);
    expect(sheet).toHaveLength(2);
    expect(sheet[1]![RAW_COLUMNS.indexOf('label')]).toBe('goal-1');
  });

  it('an empty selection is a header row alone (CSV) and a sheet with only the header (XLSX)', async () => {
    const sb = await startReportingSandbox();
    const csv = await sb.download(`${sb.base}/step/2/download/`, wholeDay());
    expect(parse(csv.bytes.toString('utf8'))).toEqual([[...RAW_COLUMNS]]);
    const xlsx = await sb.download(`${sb.base}/step/2/download/`, { ...wholeDay(), format: 'xlsx' });
    expect(await readSheet(xlsx.bytes)).toEqual([[...RAW_COLUMNS]]);
  });

  it('an invalid format answers 400 with the documented body: keyed by field name, a list of messages', async () => {
    const sb = await seeded();
    for (const path of [`${sb.base}/step/1/download/`, `${sb.base}/source_data/download/`]) {
      const res = await sb.call('POST', path, { ...wholeDay(), format: 'pdf' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ format: ['Must be xlsx or csv.'] });
    }
  });
});
