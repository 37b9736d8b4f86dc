/**
 * Interactions under /api/interactions (spec 02): create, the legacy
 * camelCase read and full-object update, delete, publish, unpublish and
 * revert; and GET /api/templates/default. These paths carry no organization:
 * it is the caller's. `<interaction_id>` is the UUID or the integer ID.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  InteractionCreate,
  LegacyInteractionUpdate,
  PublishQuery,
  RevertRequest,
} from '../../platform/schemas/builder-interactions.ts';
import { callerOf } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { builderStateOf } from './builder-state.ts';
import { actorOf } from './caller.ts';
import { defaultTemplate } from './default-template.ts';
import { legacyView, singleView } from './interaction-views.ts';
import { createInteraction, updateInteraction } from './interactions.ts';
import type { InteractionRecord } from './model.ts';
import { publish, revert, unpublish } from './publishing.ts';

interface InteractionParams {
  interaction_id: string;
}
type Request = FastifyRequest<{ Params: InteractionParams }>;

/** A stale tag answers a JSON `null` body (spec 02), not an error. */
function sendOrNull(reply: FastifyReply, record: InteractionRecord | undefined) {
  if (record === undefined) return reply.status(200).type('application/json').send('null');
  return reply.status(200).send(singleView(record));
}

export function registerLegacyInteractionRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  const builder = builderStateOf(state);
  const interactionOf = (request: Request, access: 'read' | 'write') => {
    const caller = callerOf(state, request);
    return { caller, record: builder.requireInteraction(request.params.interaction_id, caller.organizationId, access) };
  };

  app.get('/api/templates/default', async (request) => {
    callerOf(state, request);
    return defaultTemplate();
  });

  for (const url of ['/api/interactions/', '/api/interactions']) {
    app.post(url, async (request, reply) => {
      const caller = callerOf(state, request);
      const input = parsePayload(InteractionCreate, request.body);
      return reply.status(201).send(singleView(createInteraction(state, builder, actorOf(caller), input)));
    });
  }

  app.get<{ Params: InteractionParams }>('/api/interactions/:interaction_id', async (request) =>
    legacyView(interactionOf(request, 'read').record),
  );

  app.post<{ Params: InteractionParams }>('/api/interactions/:interaction_id', async (request) => {
    const { caller, record } = interactionOf(request, 'write');
    const input = parsePayload(LegacyInteractionUpdate, request.body);
    return legacyView(updateInteraction(state, builder, record, actorOf(caller), input));
  });

  app.delete<{ Params: InteractionParams }>('/api/interactions/:interaction_id', async (request, reply) => {
    const { record } = interactionOf(request, 'write');
    builder.interactions.delete(record.uuid);
    return reply.status(200).send();
  });

  app.post<{ Params: InteractionParams }>('/api/interactions/:interaction_id/publish', async (request, reply) => {
    const { record } = interactionOf(request, 'write');
    const { tag } = parsePayload(PublishQuery, request.query);
    return sendOrNull(reply, publish(state, record, tag));
  });

  app.post<{ Params: InteractionParams }>('/api/interactions/:interaction_id/unpublish', async (request, reply) => {
    const { record } = interactionOf(request, 'write');
    const { tag } = parsePayload(PublishQuery, request.query);
    return sendOrNull(reply, unpublish(record, tag));
  });

  app.post<{ Params: InteractionParams }>('/api/interactions/:interaction_id/revert', async (request) => {
    const { caller, record } = interactionOf(request, 'write');
    parsePayload(RevertRequest, request.body ?? {});
    return singleView(revert(state, record, actorOf(caller)));
  });
}
