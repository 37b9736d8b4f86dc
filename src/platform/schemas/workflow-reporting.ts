/**
 * Workflow reporting (spec 02, "Workflow info", "Workflow row data" and
 * "Workflow reporting"), under the API address at
 * /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>.
 *
 * Four POST endpoints share one payload: step rows and source-data rows (events
 * not tied to a step, currently outer goal events), each as JSON or as a file.
 * Their differences are in which fields they take:
 *
 * | field  | step JSON | step download | source JSON | source download |
 * |--------|-----------|---------------|-------------|-----------------|
 * | target | default, triggered_goal | same | affected_goal, affected_goal_total | same |
 * | basic  | yes       | no            | yes         | no              |
 * | format | no        | csv, xlsx     | no          | csv, xlsx       |
 *
 * The documented behaviour of reporting pages is marked as subject to change.
 */
import { z } from 'zod';
import { isoDateTime, positiveInt } from './request-fields.ts';

// ─── Payload ────────────────────────────────────────────────────────────────

/**
 * One filter, e.g. `{ property: 'action', values: [...] }`; outer-goal rows
 * are filtered with property `label` and goal UUIDs. The syntax beyond
 * `property` and `values` is not shown: other keys are accepted (loose object).
 */
export const WorkflowFilter = z.looseObject({
  property: z.string(),
  values: z.array(z.unknown()),
});
export type WorkflowFilter = z.input<typeof WorkflowFilter>;

export const WorkflowInterval = z.strictObject({
  start: isoDateTime,
  end: isoDateTime,
});
export type WorkflowInterval = z.input<typeof WorkflowInterval>;

/**
 * One entry of `step_data`: index 0 is the source step (send `{}`), index 1 is
 * step 1 and so on. `actions` holds page_url values (web navigation workflows)
 * or view_uid values (interaction workflows); voice and video, chat and
 * user-generated workflows ignore `step_data`.
 */
export const WorkflowStepData = z.strictObject({
  actions: z.array(z.string()).optional(),
});
export type WorkflowStepData = z.input<typeof WorkflowStepData>;

export const STEP_TARGETS = ['default', 'triggered_goal'] as const;
/** affected_goal: goal trigger events related to the workflow; affected_goal_total: all of them. */
export const SOURCE_DATA_TARGETS = ['affected_goal', 'affected_goal_total'] as const;
export const DOWNLOAD_FORMATS = ['csv', 'xlsx'] as const;

/** The content types of the download answers (the filename is in Content-Disposition). */
export const DOWNLOAD_CONTENT_TYPES = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const satisfies Record<(typeof DOWNLOAD_FORMATS)[number], string>;

const payload = {
  filters: z.array(WorkflowFilter),
  interval: WorkflowInterval,
  step_data: z.array(WorkflowStepData).optional(),
  /** Rows to return, greater than 0; all rows when omitted. */
  limit: positiveInt.optional(),
};

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `Must be one of ${values.join(', ')}.` });

/** true: human-readable columns; false (default): raw columns. JSON endpoints only. */
const basic = z.boolean({ error: 'Must be true or false.' }).optional();
/** csv (default) or xlsx. Download endpoints only. */
const format = z
  .enum(DOWNLOAD_FORMATS, { error: 'Must be xlsx or csv.' })
  .optional();

/** POST …/step/<step_index>. */
export const WorkflowStepRequest = z.strictObject({
  ...payload,
  target: oneOf(STEP_TARGETS).optional(),
  basic,
});
export type WorkflowStepRequest = z.input<typeof WorkflowStepRequest>;

/** POST …/step/<step_index>/download/. */
export const WorkflowStepDownloadRequest = z.strictObject({
  ...payload,
  target: oneOf(STEP_TARGETS).optional(),
  format,
});
export type WorkflowStepDownloadRequest = z.input<typeof WorkflowStepDownloadRequest>;

/** POST …/source_data. */
export const WorkflowSourceDataRequest = z.strictObject({
  ...payload,
  target: oneOf(SOURCE_DATA_TARGETS).optional(),
  basic,
});
export type WorkflowSourceDataRequest = z.input<typeof WorkflowSourceDataRequest>;

/** POST …/source_data/download/. */
export const WorkflowSourceDataDownloadRequest = z.strictObject({
  ...payload,
  target: oneOf(SOURCE_DATA_TARGETS).optional(),
  format,
});
export type WorkflowSourceDataDownloadRequest = z.input<typeof WorkflowSourceDataDownloadRequest>;

// ─── Answers ────────────────────────────────────────────────────────────────

export const WORKFLOW_TYPES = ['giosg-default', 'interaction', 'user-generated'] as const;

/** GET …/info/. */
export const WorkflowInfo = z.looseObject({
  id: z.string(),
  org_id: z.string(),
  /** Internal type. */
  type: z.enum(WORKFLOW_TYPES),
  name: z.string(),
  description: z.string(),
  modified_at: z.string(),
  /** Published or draft. */
  is_published: z.boolean(),
  /** Date of the first event. */
  start_date: z.string(),
  /** Date of the last event. */
  end_date: z.string(),
});
export type WorkflowInfo = z.infer<typeof WorkflowInfo>;

/** A column descriptor; datetime columns carry `tz` (UTC). */
export const WorkflowColumn = z.looseObject({
  name: z.string(),
  type: z.string(),
  tz: z.string().optional(),
});
export type WorkflowColumn = z.infer<typeof WorkflowColumn>;

/** The JSON answer of the step and source-data endpoints: column descriptors and one object per event. */
export const WorkflowRows = z.looseObject({
  fields: z.array(WorkflowColumn),
  data: z.array(z.record(z.string(), z.unknown())),
});
export type WorkflowRows = z.infer<typeof WorkflowRows>;

/** Basic (`basic: true`) step columns of interaction workflows; the first is datetime (UTC), the rest strings. */
export const BASIC_STEP_COLUMNS = [
  'Date & Time', 'View title', 'Browser', 'Device', 'City', 'Country', 'ISP or organisation',
  'OS (operating system)', 'Interaction Workflow ID', 'Workflow Session ID', 'Visitor ID',
] as const;

/**
 * Basic outer-goal (source data) columns. Data rows also carry a list column
 * named `Interaction ID / Room IDs` holding `room_id=<room_id>` entries.
 */
export const BASIC_OUTER_GOAL_COLUMNS = [
  'Date & Time', 'Goal ID', 'View title', 'Page title', 'Page URL', 'Browser', 'Device', 'City',
  'Country', 'ISP or organisation', 'OS (operating system)', 'Interaction ID', 'Visitor ID', 'Session ID',
] as const;

/** Raw (advanced) columns in order; the first, event time, is keyed `timestamp` in data rows. */
export const RAW_COLUMNS = [
  'timestamp', 'source', 'event_version', 'organization_id', 'organization_name', 'category', 'action',
  'label', 'vendor', 'properties', 'dim1', 'dim2', 'dim3', 'dim4', 'dim5', 'visitor_id', 'session_id',
  'user_id', 'partner_organization_ids', 'browser_name', 'browser_version', 'device_screen_height',
  'device_screen_width', 'device_type', 'geo_city', 'geo_country', 'ip_organization', 'os_name',
  'os_version', 'value',
] as const;

const rawText = z.string().nullable().optional();
const rawList = z.array(z.string()).nullable().optional();

/**
 * One raw data row. Unset values are null. For outer-goal events category is
 * `goal`, action `trigger` and label the goal ID; dim1 and dim2 hold page URL
 * and title; properties hold `room_id=<room_id>` entries.
 */
export const RawWorkflowRow = z.looseObject({
  timestamp: rawText,
  source: rawText,
  event_version: z.number().int().nullable().optional(),
  organization_id: rawText,
  organization_name: rawText,
  category: rawText,
  action: rawText,
  label: rawText,
  vendor: rawText,
  properties: rawList,
  dim1: rawText,
  dim2: rawText,
  dim3: rawText,
  dim4: rawText,
  dim5: rawText,
  visitor_id: rawText,
  session_id: rawText,
  user_id: rawText,
  partner_organization_ids: rawList,
  browser_name: rawText,
  browser_version: rawText,
  device_screen_height: rawText,
  device_screen_width: rawText,
  device_type: rawText,
  geo_city: rawText,
  geo_country: rawText,
  ip_organization: rawText,
  os_name: rawText,
  os_version: rawText,
  value: z.number().nullable().optional(),
});
export type RawWorkflowRow = z.infer<typeof RawWorkflowRow>;
