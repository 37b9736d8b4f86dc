/**
 * File downloads of workflow rows (spec 02): CSV (csv-stringify) or XLSX
 * (exceljs's streaming WorkbookWriter), the documented Content-Type and a
 * filename in Content-Disposition. A download carries the raw columns in the
 * documented order (downloads take no `basic`); a list cell is its entries
 * joined by ", "; an unset value is an empty cell; the event time is an
 * ISO 8601 UTC text in CSV and a date cell (UTC) in XLSX.
 */
import { PassThrough, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { createRequire } from 'node:module';
import type ExcelJSModule from 'exceljs';
import { DOWNLOAD_CONTENT_TYPES, DOWNLOAD_FORMATS } from '../../platform/schemas/workflow-reporting.ts';
import type { Cell, RowTable } from './columns.ts';

export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export interface Download {
  contentType: string;
  contentDisposition: string;
  body: Readable;
}

function cellText(value: Cell): string | number | null {
  if (value === null) return null;
  return Array.isArray(value) ? value.join(', ') : (value as string | number);
}

function csvBody(table: RowTable): Readable {
  const names = table.columns.map((c) => c.name);
  const csv = stringify({ header: true, columns: names, record_delimiter: 'windows' });
  for (const row of table.rows) csv.write(names.map((n) => cellText(row[n] ?? null) ?? ''));
  csv.end();
  return csv;
}

/** exceljs, loaded on the first XLSX download (about 10 MB of code a sandbox that serves none need not hold). */
let excel: typeof ExcelJSModule | undefined;
const loadExcel = (): typeof ExcelJSModule => (excel ??= createRequire(import.meta.url)('exceljs') as typeof ExcelJSModule);

function xlsxBody(table: RowTable, sheetName: string): Readable {
  const ExcelJS = loadExcel();
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName);
  sheet.columns = table.columns.map((c) => ({
    header: c.name,
    key: c.name,
    width: Math.max(12, c.name.length + 2),
    ...(c.type === 'datetime' ? { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } } : {}),
  }));
  for (const row of table.rows) {
    const values: Record<string, string | number | Date | null> = {};
    for (const c of table.columns) {
      const value = row[c.name] ?? null;
      values[c.name] = c.type === 'datetime' && typeof value === 'string' ? new Date(value) : cellText(value);
    }
    sheet.addRow(values).commit();
  }
  sheet.commit();
  workbook.commit().catch((err: unknown) => out.destroy(err as Error));
  return out;
}

/** `basename` without extension, e.g. `workflow_<id>_step_1`. */
export function buildDownload(table: RowTable, format: DownloadFormat, basename: string): Download {
  const filename = `${basename}.${format}`;
  return {
    contentType: DOWNLOAD_CONTENT_TYPES[format],
    contentDisposition: `attachment; filename="${filename}"`,
    body: format === 'csv' ? csvBody(table) : xlsxBody(table, 'Rows'),
  };
}
