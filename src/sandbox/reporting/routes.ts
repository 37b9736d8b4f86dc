/**
 * The workflow reporting endpoints of spec 02 under
 * /api/reporting/workflow/v1/orgs/<organization_id>/workflows/<workflow_id>:
 * step rows and source data as JSON or as a file, and the workflow info.
 * Checks in order (docs/decisions/sandbox-order-of-checks.md): access (401/403),
 * the workflow (404), the payload (400, keyed by field: body, step index form,
 * interval), filters (406), the step beyond the workflow (404), the query
 * (500 when seeded).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  WorkflowInfo,
  WorkflowSourceDataDownloadRequest,
  WorkflowSourceDataRequest,
  WorkflowStepDownloadRequest,
  WorkflowStepRequest,
} from '../../platform/schemas/workflow-reporting.ts';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { rowsBody, rowTable } from './columns.ts';
import { buildDownload, type Download } from './downloads.ts';
import { ReportingQueryError } from './errors.ts';
import type { WorkflowEventRecord, WorkflowRecord } from './model.ts';
import { requestPredicates, sourceRows, stepRows } from './query.ts';
import type { ReportingState } from './state.ts';

interface WorkflowParams {
  organization_id: string;
  workflow_id: string;
  step_index?: string;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function workflowInfoView(state: ReportingState, workflow: WorkflowRecord): WorkflowInfo {
  const times = state.eventsOf(workflow.id).map((e) => e.time);
  const first = times.length === 0 ? workflow.createdAt : Math.min(...times);
  const last = times.length === 0 ? workflow.createdAt : Math.max(...times);
  return {
    id: workflow.id,
    org_id: workflow.organizationId,
    type: workflow.type,
    name: workflow.name,
    description: workflow.description,
    modified_at: new Date(workflow.modifiedAt).toISOString(),
    is_published: workflow.isPublished,
    start_date: isoDate(first),
    end_date: isoDate(last),
  };
}

export function registerWorkflowReportingRoutes(app: FastifyInstance, reporting: ReportingState): void {
  const workflowOf = (request: FastifyRequest): WorkflowRecord => {
    const params = request.params as WorkflowParams;
    const workflow = reporting.workflows.get(params.workflow_id);
    if (workflow === undefined || workflow.organizationId !== params.organization_id) {
      throw new SandboxNotFoundError('Workflow not found.');
    }
    return workflow;
  };

  /** The step index of the path; its form is part of the payload checks (400). */
  const stepIndexOf = (request: FastifyRequest): number => {
    const raw = (request.params as WorkflowParams).step_index ?? '';
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      throw SandboxValidationError.field('step_index', 'Must be a positive integer.');
    }
    return Number(raw);
  };

  /** The step must exist (404), checked after the payload (400) and the filters (406). */
  const requireStep = (workflow: WorkflowRecord, index: number): void => {
    if (index > workflow.steps) throw new SandboxNotFoundError(`Step ${index} not found.`);
  };

  const queried = (workflow: WorkflowRecord, run: () => WorkflowEventRecord[]) => {
    const events = run();
    if (workflow.failQueries) throw new ReportingQueryError('Unexpected error in the query.');
    return events;
  };

  const sendDownload = (reply: FastifyReply, download: Download) =>
    reply
      .header('content-type', download.contentType)
      .header('content-disposition', download.contentDisposition)
      .send(download.body);

  app.post('/step/:step_index', async (request) => {
    const workflow = workflowOf(request);
    const body = parsePayload(WorkflowStepRequest, request.body);
    const step = stepIndexOf(request);
    const checked = requestPredicates(body);
    requireStep(workflow, step);
    const events = queried(workflow, () => stepRows(reporting, workflow, step, body, checked));
    return rowsBody(rowTable(events, body.basic === true ? 'basic-step' : 'raw'));
  });

  app.post('/step/:step_index/download/', async (request, reply) => {
    const workflow = workflowOf(request);
    const body = parsePayload(WorkflowStepDownloadRequest, request.body);
    const step = stepIndexOf(request);
    const checked = requestPredicates(body);
    requireStep(workflow, step);
    const events = queried(workflow, () => stepRows(reporting, workflow, step, body, checked));
    const name = `workflow_${workflow.id}_step_${step}`;
    return sendDownload(reply, buildDownload(rowTable(events, 'raw'), body.format ?? 'csv', name));
  });

  app.post('/source_data', async (request) => {
    const workflow = workflowOf(request);
    const body = parsePayload(WorkflowSourceDataRequest, request.body);
    const checked = requestPredicates(body);
    const events = queried(workflow, () => sourceRows(reporting, workflow, body, checked));
    return rowsBody(rowTable(events, body.basic === true ? 'basic-outer-goal' : 'raw'));
  });

  app.post('/source_data/download/', async (request, reply) => {
    const workflow = workflowOf(request);
    const body = parsePayload(WorkflowSourceDataDownloadRequest, request.body);
    const checked = requestPredicates(body);
    const events = queried(workflow, () => sourceRows(reporting, workflow, body, checked));
    const name = `workflow_${workflow.id}_source_data`;
    return sendDownload(reply, buildDownload(rowTable(events, 'raw'), body.format ?? 'csv', name));
  });

  app.get('/info/', async (request) => workflowInfoView(reporting, workflowOf(request)));
}
