/**
 * What the sandbox keeps for workflow reporting (spec 02, "Workflow
 * reporting"): workflows, their events, and who may read them. Times are
 * epoch milliseconds of the sandbox clock.
 */
import type { RAW_COLUMNS, WORKFLOW_TYPES } from '../../platform/schemas/workflow-reporting.ts';

export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

export interface WorkflowRecord {
  id: string;
  organizationId: string;
  type: WorkflowType;
  name: string;
  description: string;
  isPublished: boolean;
  /** Steps after the source step; `step/<n>` answers for 1 ≤ n ≤ steps. */
  steps: number;
  createdAt: number;
  modifiedAt: number;
  /** Seeded fault: the row endpoints answer 500 ("unexpected error in the query"). */
  failQueries: boolean;
}

/** The raw columns except the event time, which the record keeps as `time`. */
export type RawColumn = Exclude<(typeof RAW_COLUMNS)[number], 'timestamp'>;

/** A raw value: text, a list of texts (properties, partner_organization_ids), a number (event_version, value), or null. */
export type RawValue = string | number | readonly string[] | null;

export interface WorkflowEventRecord {
  id: string;
  organizationId: string;
  /** The related workflow; null for an outer goal event related to no workflow. */
  workflowId: string | null;
  /** The step (≥ 1) of a step event; null for events not tied to a step (outer goal events). */
  stepIndex: number | null;
  time: number;
  /** Every raw column but the time; unset values are null. */
  fields: Record<RawColumn, RawValue>;
}

/** Access to reporting beyond the token: the subscription of an organization, the permission of a token. */
export interface ReportingAccess {
  inactiveSubscriptions: Set<string>;
  tokensWithoutPermission: Set<string>;
}
