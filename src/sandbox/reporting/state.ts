/**
 * The reporting side of the sandbox's world: workflows, their events (step
 * events and outer goal events), and the subscription and permission switches
 * the control API flips to reach the documented 403s.
 */
import { randomUUID } from 'node:crypto';
import { RAW_COLUMNS } from '../../platform/schemas/workflow-reporting.ts';
import type { RawColumn, RawValue, ReportingAccess, WorkflowEventRecord, WorkflowRecord } from './model.ts';

export const RAW_FIELD_COLUMNS = RAW_COLUMNS.filter((c): c is RawColumn => c !== 'timestamp');

/** Columns holding lists of texts. */
export const LIST_COLUMNS: ReadonlySet<RawColumn> = new Set(['properties', 'partner_organization_ids']);
/** Columns holding numbers. */
export const NUMBER_COLUMNS: ReadonlySet<RawColumn> = new Set(['event_version', 'value']);

export type NewWorkflow = Omit<WorkflowRecord, 'id' | 'createdAt' | 'modifiedAt'>;

export interface NewWorkflowEvent {
  organizationId: string;
  workflowId: string | null;
  stepIndex: number | null;
  time: number;
  fields: Partial<Record<RawColumn, RawValue>>;
}

export class ReportingState {
  readonly workflows = new Map<string, WorkflowRecord>();
  readonly events: WorkflowEventRecord[] = [];
  readonly access: ReportingAccess = { inactiveSubscriptions: new Set(), tokensWithoutPermission: new Set() };

  addWorkflow(workflow: NewWorkflow, now: number): WorkflowRecord {
    const record: WorkflowRecord = { ...workflow, id: randomUUID(), createdAt: now, modifiedAt: now };
    this.workflows.set(record.id, record);
    return record;
  }

  addEvent(event: NewWorkflowEvent): WorkflowEventRecord {
    const fields = Object.fromEntries(RAW_FIELD_COLUMNS.map((c) => [c, event.fields[c] ?? null])) as Record<
      RawColumn,
      RawValue
    >;
    const record: WorkflowEventRecord = { ...event, id: randomUUID(), fields };
    this.events.push(record);
    return record;
  }

  /** Step events and related outer goal events of a workflow. */
  eventsOf(workflowId: string): WorkflowEventRecord[] {
    return this.events.filter((e) => e.workflowId === workflowId);
  }
}
