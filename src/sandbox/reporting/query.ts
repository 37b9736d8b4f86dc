/**
 * Selecting the events of one request of the step or source-data endpoints:
 * interval, filters, step_data actions, target and limit (spec 02, "Workflow
 * reporting" payload fields). Events come out in time order (ties by id).
 *
 * - interval: start ≤ event time < end, so adjacent intervals never repeat a row;
 * - filters: `{property, values}` on a raw column, matched as text (a list
 *   column matches when any entry is among the values). Any other key, a
 *   property that is not a filterable column, or a non-text value is a filter
 *   the sandbox has not implemented: 406;
 * - step_data: `step_data[n].actions` keeps the events of step n whose view_uid
 *   (`label`, interaction workflows) or page_url (`dim1`, web navigation,
 *   type giosg-default) is listed; user-generated workflows ignore it;
 * - target of the step endpoints: default = the step's events except goal
 *   triggers, triggered_goal = the step's goal triggers; of the source-data
 *   endpoints: affected_goal = outer goal triggers related to the workflow,
 *   affected_goal_total = every outer goal trigger of the organization.
 */
import { SandboxValidationError } from '../errors.ts';
import { instantOf } from '../time.ts';
import { ReportingNotImplementedError } from './errors.ts';
import type { RawColumn, RawValue, WorkflowEventRecord, WorkflowRecord } from './model.ts';
import { NUMBER_COLUMNS, RAW_FIELD_COLUMNS, type ReportingState } from './state.ts';

export interface RowRequest {
  filters: { property: string; values: unknown[]; [key: string]: unknown }[];
  interval: { start: string; end: string };
  step_data?: { actions?: string[] }[] | undefined;
  limit?: number | undefined;
}

export type StepTarget = 'default' | 'triggered_goal';
export type SourceTarget = 'affected_goal' | 'affected_goal_total';

const FILTERABLE: ReadonlySet<string> = new Set(RAW_FIELD_COLUMNS.filter((c) => !NUMBER_COLUMNS.has(c)));

type Predicate = (event: WorkflowEventRecord) => boolean;

function intervalPredicate(interval: RowRequest['interval']): Predicate {
  const start = instantOf(interval.start);
  const end = instantOf(interval.end);
  if (!(start < end)) throw SandboxValidationError.field('interval', 'The end must be later than the start.');
  return (e) => e.time >= start && e.time < end;
}

function filterPredicate(filter: RowRequest['filters'][number], index: number): Predicate {
  const extra = Object.keys(filter).filter((k) => k !== 'property' && k !== 'values');
  if (extra.length > 0) {
    throw new ReportingNotImplementedError(`filters.${index}: filtering with ${extra.join(', ')} is not implemented.`);
  }
  if (!FILTERABLE.has(filter.property)) {
    throw new ReportingNotImplementedError(`filters.${index}: filtering on property ${filter.property} is not implemented.`);
  }
  if (!filter.values.every((v) => typeof v === 'string')) {
    throw new ReportingNotImplementedError(`filters.${index}: filtering with values other than text is not implemented.`);
  }
  const wanted = new Set(filter.values as string[]);
  const property = filter.property as RawColumn;
  return (e) => matches(e.fields[property], wanted);
}

function matches(value: RawValue, wanted: ReadonlySet<string>): boolean {
  if (value === null) return false;
  if (Array.isArray(value)) return value.some((v) => wanted.has(v));
  return wanted.has(String(value));
}

const isGoalTrigger: Predicate = (e) => e.fields.category === 'goal' && e.fields.action === 'trigger';

function actionsPredicate(workflow: WorkflowRecord, actions: readonly string[] | undefined): Predicate {
  if (actions === undefined || workflow.type === 'user-generated') return () => true;
  const wanted = new Set(actions);
  const key: RawColumn = workflow.type === 'interaction' ? 'label' : 'dim1';
  return (e) => matches(e.fields[key], wanted);
}

function select(events: readonly WorkflowEventRecord[], predicates: Predicate[], limit: number | undefined) {
  const rows = events
    .filter((e) => predicates.every((p) => p(e)))
    .sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return limit === undefined ? rows : rows.slice(0, limit);
}

/**
 * The request's checks, turned into the common predicates: the interval
 * (400), then the filters (406). Routes call this before looking at the step
 * (404), the documented order; it reads no data, so a bad request fails
 * whatever the data.
 */
export function requestPredicates(request: RowRequest): RowPredicates {
  return { predicates: [intervalPredicate(request.interval), ...request.filters.map(filterPredicate)] };
}

/** The checked interval and filters of one request (see requestPredicates). */
export interface RowPredicates {
  readonly predicates: readonly Predicate[];
}

export function stepRows(
  state: ReportingState,
  workflow: WorkflowRecord,
  stepIndex: number,
  request: RowRequest & { target?: StepTarget | undefined },
  checked: RowPredicates,
): WorkflowEventRecord[] {
  const common = checked.predicates;
  const target = request.target ?? 'default';
  const ofStep: Predicate = (e) => e.stepIndex === stepIndex;
  const byTarget: Predicate = target === 'triggered_goal' ? isGoalTrigger : (e) => !isGoalTrigger(e);
  const actions = actionsPredicate(workflow, request.step_data?.[stepIndex]?.actions);
  return select(state.eventsOf(workflow.id), [ofStep, byTarget, actions, ...common], request.limit);
}

export function sourceRows(
  state: ReportingState,
  workflow: WorkflowRecord,
  request: RowRequest & { target?: SourceTarget | undefined },
  checked: RowPredicates,
): WorkflowEventRecord[] {
  const common = checked.predicates;
  const total = request.target === 'affected_goal_total';
  const pool = total ? state.events.filter((e) => e.organizationId === workflow.organizationId) : state.eventsOf(workflow.id);
  const outerGoal: Predicate = (e) => e.stepIndex === null && isGoalTrigger(e);
  return select(pool, [outerGoal, ...common], request.limit);
}
