/**
 * The control API of workflow reporting, under /_sandbox (no auth):
 *
 * - POST /_sandbox/workflows: a workflow (type, name, steps, publish state;
 *   `fail_queries` makes its row endpoints answer 500);
 * - POST /_sandbox/workflow-events: events of a workflow step (`step_index`)
 *   or outer goal events (no `step_index`; category goal and action trigger
 *   unless given), related to a workflow or, without `workflow_id`, to none;
 * - POST /_sandbox/reporting-access: switch an organization's subscription or
 *   a token's reporting permission on or off.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoDateTime, positiveInt } from '../../platform/schemas/request-fields.ts';
import { WORKFLOW_TYPES } from '../../platform/schemas/workflow-reporting.ts';
import type { SandboxContext } from '../context.ts';
import { SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { organizationFor } from '../routes/control-admin.ts';
import { instantOf } from '../time.ts';
import type { RawColumn, RawValue } from './model.ts';
import { workflowInfoView } from './routes.ts';
import { LIST_COLUMNS, NUMBER_COLUMNS, RAW_FIELD_COLUMNS, type ReportingState } from './state.ts';

const WorkflowBody = z.strictObject({
  organization_id: z.string().optional(),
  type: z.enum(WORKFLOW_TYPES).default('interaction'),
  name: z.string().min(1).default('Sandbox workflow'),
  description: z.string().default(''),
  is_published: z.boolean().default(true),
  steps: positiveInt.default(3),
  fail_queries: z.boolean().default(false),
});

function rawFieldSchema(column: RawColumn): z.ZodType {
  if (LIST_COLUMNS.has(column)) return z.array(z.string()).nullable().optional();
  if (column === 'event_version') return z.number().int().nullable().optional();
  if (NUMBER_COLUMNS.has(column)) return z.number().nullable().optional();
  return z.string().nullable().optional();
}

const SeedEvent = z.strictObject({
  timestamp: isoDateTime.optional(),
  ...Object.fromEntries(RAW_FIELD_COLUMNS.map((c) => [c, rawFieldSchema(c)])),
});

const WorkflowEventsBody = z.strictObject({
  workflow_id: z.string().optional(),
  organization_id: z.string().optional(),
  step_index: positiveInt.nullable().optional(),
  events: z.array(SeedEvent).min(1),
});

const AccessBody = z.strictObject({
  organization_id: z.string().optional(),
  subscription_active: z.boolean().optional(),
  token: z.string().optional(),
  reporting_permission: z.boolean().optional(),
});

const toggle = (set: Set<string>, key: string, denied: boolean) => (denied ? set.add(key) : set.delete(key));

export function registerReportingControlRoutes(app: FastifyInstance, ctx: SandboxContext, reporting: ReportingState): void {
  const { state, seed } = ctx;

  app.post('/workflows', async (request, reply) => {
    const body = parsePayload(WorkflowBody, request.body);
    const organization = organizationFor(state, body.organization_id, seed.organization.id);
    const workflow = reporting.addWorkflow(
      {
        organizationId: organization.id,
        type: body.type,
        name: body.name,
        description: body.description,
        isPublished: body.is_published,
        steps: body.steps,
        failQueries: body.fail_queries,
      },
      state.now(),
    );
    return reply.status(201).send({ ...workflowInfoView(reporting, workflow), steps: workflow.steps });
  });

  app.post('/workflow-events', async (request, reply) => {
    const body = parsePayload(WorkflowEventsBody, request.body);
    const workflow = body.workflow_id === undefined ? undefined : reporting.workflows.get(body.workflow_id);
    if (body.workflow_id !== undefined && workflow === undefined) {
      throw SandboxValidationError.field('workflow_id', 'Workflow not found.');
    }
    const stepIndex = body.step_index ?? null;
    if (stepIndex !== null && workflow === undefined) {
      throw SandboxValidationError.field('step_index', 'Step events need a workflow_id.');
    }
    if (workflow !== undefined && stepIndex !== null && stepIndex > workflow.steps) {
      throw SandboxValidationError.field('step_index', `The workflow has ${workflow.steps} steps.`);
    }
    const organization = organizationFor(state, workflow?.organizationId ?? body.organization_id, seed.organization.id);
    const outerGoal = stepIndex === null ? { category: 'goal', action: 'trigger' } : {};
    const created = body.events.map((event) => {
      const { timestamp, ...fields } = event as { timestamp?: string } & Partial<Record<RawColumn, RawValue>>;
      return reporting.addEvent({
        organizationId: organization.id,
        workflowId: workflow?.id ?? null,
        stepIndex,
        time: timestamp === undefined ? state.now() : instantOf(timestamp),
        fields: { organization_id: organization.id, organization_name: organization.name, ...outerGoal, ...fields },
      });
    });
    return reply.status(201).send({ created: created.length, ids: created.map((e) => e.id) });
  });

  app.post('/reporting-access', async (request) => {
    const body = parsePayload(AccessBody, request.body);
    const organization = organizationFor(state, body.organization_id, seed.organization.id);
    if (body.subscription_active !== undefined) {
      toggle(reporting.access.inactiveSubscriptions, organization.id, !body.subscription_active);
    }
    if (body.reporting_permission !== undefined) {
      const token = body.token ?? seed.token.token;
      if (!state.tokens.has(token)) throw SandboxValidationError.field('token', 'Token not found.');
      toggle(reporting.access.tokensWithoutPermission, token, !body.reporting_permission);
    }
    return {
      organization_id: organization.id,
      subscription_active: !reporting.access.inactiveSubscriptions.has(organization.id),
    };
  });
}
