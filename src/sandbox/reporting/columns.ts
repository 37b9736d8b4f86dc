/**
 * The row data of the step and source-data endpoints: column descriptors
 * (`fields`) and one object per event (`data`), in the raw form (spec 02's
 * columns in the documented order) or the basic, human-readable form.
 *
 * Where the basic columns come from (spec 02 names them, not their sources;
 * docs/decisions/sandbox-reporting.md): Date & Time ← event time; Browser ← browser_name;
 * Device ← device_type; City ← geo_city; Country ← geo_country; ISP or
 * organisation ← ip_organization; OS ← os_name; Visitor ID ← visitor_id;
 * Session ID and Workflow Session ID ← session_id; Goal ID ← label; Page URL ← dim1; Page title ←
 * dim2; View title ← dim3; Interaction ID ← dim4; Interaction Workflow ID ←
 * the workflow's id; Interaction ID / Room IDs ← properties.
 */
import {
  BASIC_OUTER_GOAL_COLUMNS,
  BASIC_STEP_COLUMNS,
  RAW_COLUMNS,
  type WorkflowColumn,
  type WorkflowRows,
} from '../../platform/schemas/workflow-reporting.ts';
import { iso } from '../time.ts';
import type { RawColumn, RawValue, WorkflowEventRecord } from './model.ts';
import { LIST_COLUMNS, NUMBER_COLUMNS } from './state.ts';

export const UTC = 'UTC';
const DATE_TIME = 'Date & Time';
/** The list column basic outer-goal rows carry besides their columns. */
export const ROOM_IDS_COLUMN = 'Interaction ID / Room IDs';

export type Cell = string | number | readonly string[] | null;
export type Row = Record<string, Cell>;

export interface RowTable {
  columns: WorkflowColumn[];
  rows: Row[];
}

function rawColumn(name: (typeof RAW_COLUMNS)[number]): WorkflowColumn {
  if (name === 'timestamp') return { name, type: 'datetime', tz: UTC };
  if (name === 'event_version') return { name, type: 'integer' };
  if (name === 'value') return { name, type: 'number' };
  return { name, type: LIST_COLUMNS.has(name) ? 'list' : 'string' };
}

export const RAW_COLUMN_DESCRIPTORS: readonly WorkflowColumn[] = RAW_COLUMNS.map(rawColumn);

function rawRow(event: WorkflowEventRecord): Row {
  const row: Row = { timestamp: iso(event.time) };
  for (const [name, value] of Object.entries(event.fields) as [RawColumn, RawValue][]) {
    row[name] = NUMBER_COLUMNS.has(name) || LIST_COLUMNS.has(name) || value === null ? value : String(value);
  }
  return row;
}

const basicColumns = (names: readonly string[]): WorkflowColumn[] =>
  names.map((name) => (name === DATE_TIME ? { name, type: 'datetime', tz: UTC } : { name, type: 'string' }));

const text = (value: RawValue): string | null => (value === null ? null : Array.isArray(value) ? value.join(', ') : String(value));

/** The columns shared by both basic forms, by column name. */
function commonBasic(event: WorkflowEventRecord): Row {
  const f = event.fields;
  return {
    [DATE_TIME]: iso(event.time),
    'View title': text(f.dim3),
    Browser: text(f.browser_name),
    Device: text(f.device_type),
    City: text(f.geo_city),
    Country: text(f.geo_country),
    'ISP or organisation': text(f.ip_organization),
    'OS (operating system)': text(f.os_name),
    'Visitor ID': text(f.visitor_id),
  };
}

function basicStepRow(event: WorkflowEventRecord): Row {
  return {
    ...commonBasic(event),
    'Interaction Workflow ID': event.workflowId,
    'Workflow Session ID': text(event.fields.session_id),
  };
}

function basicOuterGoalRow(event: WorkflowEventRecord): Row {
  const f = event.fields;
  return {
    ...commonBasic(event),
    'Goal ID': text(f.label),
    'Page title': text(f.dim2),
    'Page URL': text(f.dim1),
    'Interaction ID': text(f.dim4),
    'Session ID': text(f.session_id),
    [ROOM_IDS_COLUMN]: Array.isArray(f.properties) ? [...f.properties] : [],
  };
}

/** Orders a row's keys as the columns are (the extra list column last). */
function ordered(row: Row, columns: readonly WorkflowColumn[]): Row {
  const out: Row = {};
  for (const c of columns) out[c.name] = row[c.name] ?? null;
  for (const [key, value] of Object.entries(row)) if (!(key in out)) out[key] = value;
  return out;
}

export type RowForm = 'raw' | 'basic-step' | 'basic-outer-goal';

export function rowTable(events: readonly WorkflowEventRecord[], form: RowForm): RowTable {
  if (form === 'raw') return { columns: [...RAW_COLUMN_DESCRIPTORS], rows: events.map(rawRow) };
  const columns = basicColumns(form === 'basic-step' ? BASIC_STEP_COLUMNS : BASIC_OUTER_GOAL_COLUMNS);
  const build = form === 'basic-step' ? basicStepRow : basicOuterGoalRow;
  return { columns, rows: events.map((e) => ordered(build(e), columns)) };
}

export function rowsBody(table: RowTable): WorkflowRows {
  return { fields: table.columns, data: table.rows };
}
