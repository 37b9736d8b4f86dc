/**
 * The control API of event listing, under /_sandbox (no auth):
 *
 * - POST /_sandbox/reporting-events: generic events (vendor, category,
 *   action, …; `collector_created_at` defaults to the sandbox clock and
 *   `timestamp` to `collector_created_at`);
 * - POST /_sandbox/message-events: message events (`case_id` for case
 *   management); the sandbox's own chat messages are listed without seeding;
 * - POST /_sandbox/value-sets: a named pipeline value set (`$name` in filters).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { isoDateTime } from '../../platform/schemas/request-fields.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { organizationFor } from '../routes/control-admin.ts';
import { instantOf } from '../time.ts';
import { GENERIC_EVENT_COLUMNS, MESSAGE_EVENT_COLUMNS, type Scalar } from './model.ts';
import type { EventListingState } from './state.ts';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]).optional();
const times = { collector_created_at: isoDateTime.optional(), timestamp: isoDateTime.optional() };
const columnsOf = (names: readonly string[]) => Object.fromEntries(names.map((n) => [n, scalar]));

const GenericSeed = z.strictObject({
  ...times,
  ...columnsOf(GENERIC_EVENT_COLUMNS),
  properties: z.record(z.string(), z.unknown()).optional(),
});
const MessageSeed = z.strictObject({ ...times, ...columnsOf(MESSAGE_EVENT_COLUMNS), case_id: z.string().nullable().optional() });
const org = { organization_id: z.string().optional() };
const GenericBody = z.strictObject({ ...org, events: z.array(GenericSeed).min(1) });
const MessageBody = z.strictObject({ ...org, events: z.array(MessageSeed).min(1) });
const ValueSetBody = z.strictObject({ ...org, name: z.string().regex(/^\w+$/), values: z.array(z.string()) });

function columnValues<C extends string>(names: readonly C[], input: Record<string, unknown>): Record<C, Scalar> {
  return Object.fromEntries(names.map((n) => [n, (input[n] as Scalar | undefined) ?? null])) as Record<C, Scalar>;
}

export function registerEventControlRoutes(app: FastifyInstance, ctx: SandboxContext, events: EventListingState): void {
  const { state, seed } = ctx;
  const timesOf = (input: { collector_created_at?: string | undefined; timestamp?: string | undefined }) => {
    const collected = input.collector_created_at === undefined ? state.now() : instantOf(input.collector_created_at);
    return { collectorCreatedAt: collected, timestamp: input.timestamp === undefined ? collected : instantOf(input.timestamp) };
  };

  app.post('/reporting-events', async (request, reply) => {
    const body = parsePayload(GenericBody, request.body);
    const organizationId = organizationFor(state, body.organization_id, seed.organization.id).id;
    const created = body.events.map((e) =>
      events.addGeneric({
        organizationId,
        ...timesOf(e),
        columns: columnValues(GENERIC_EVENT_COLUMNS, e),
        ...(e.properties === undefined ? {} : { properties: e.properties }),
      }),
    );
    return reply.status(201).send({ created: created.length, ids: created.map((e) => e.id) });
  });

  app.post('/message-events', async (request, reply) => {
    const body = parsePayload(MessageBody, request.body);
    const organizationId = organizationFor(state, body.organization_id, seed.organization.id).id;
    const created = body.events.map((e) =>
      events.addMessage({
        organizationId,
        ...timesOf(e),
        columns: { ...columnValues(MESSAGE_EVENT_COLUMNS, e), type: ((e as Record<string, unknown>).type as Scalar | undefined) ?? 'msg' },
        caseId: e.case_id ?? null,
      }),
    );
    return reply.status(201).send({ created: created.length, ids: created.map((e) => e.id) });
  });

  app.post('/value-sets', async (request, reply) => {
    const body = parsePayload(ValueSetBody, request.body);
    events.setValueSet(organizationFor(state, body.organization_id, seed.organization.id).id, body.name, body.values);
    return reply.status(201).send({ name: body.name, values: body.values });
  });
}
