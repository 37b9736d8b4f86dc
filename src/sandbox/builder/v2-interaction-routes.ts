/**
 * Interactions under /api/v2/orgs/<organization_id>/interactions (spec 02):
 * list (list shape, `collection_id` and `ordering`), get, copy and move
 * (single shape). The organization in the path must be the caller's.
 *
 * Copy and move payloads are not shown in spec 02: the target collection is
 * `collection_id` (copy: optional, default the same collection; move:
 * required), like the v2 list's filter.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { InteractionCopyRequest, InteractionListQuery } from '../../platform/schemas/builder-interactions.ts';
import { authenticate } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { builderStateOf } from './builder-state.ts';
import { actorOf } from './caller.ts';
import { listView, singleView } from './interaction-views.ts';
import { copyInteraction, moveInteraction } from './interactions.ts';
import type { InteractionRecord } from './model.ts';

interface InteractionParams {
  organization_id: string;
  interaction_id: string;
}

const collectionId = z.number({ error: 'A valid integer is required.' }).int({ error: 'A valid integer is required.' });
const CopyOptions = InteractionCopyRequest.extend({ collection_id: collectionId.optional() });
const MoveRequest = z.looseObject({ collection_id: collectionId });

type Sorter = (a: InteractionRecord, b: InteractionRecord) => number;
const byName: Sorter = (a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.legacyId - b.legacyId;
const byCreated: Sorter = (a, b) => a.createdAt - b.createdAt || a.legacyId - b.legacyId;
const byUpdated: Sorter = (a, b) => a.updatedAt - b.updatedAt || a.legacyId - b.legacyId;
const SORTERS: Record<string, Sorter> = { name: byName, created_at: byCreated, updated_at: byUpdated };

function sorterFor(ordering: string | undefined): Sorter {
  if (ordering === undefined) return (a, b) => a.legacyId - b.legacyId;
  const descending = ordering.startsWith('-');
  const sorter = SORTERS[descending ? ordering.slice(1) : ordering] ?? byCreated;
  return descending ? (a, b) => sorter(b, a) : sorter;
}

export function registerV2InteractionRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;
  const builder = builderStateOf(state);
  const interactionOf = (request: FastifyRequest<{ Params: InteractionParams }>, access: 'read' | 'write') => {
    const caller = authenticate(state, request);
    return { caller, record: builder.requireInteraction(request.params.interaction_id, caller.organizationId, access) };
  };

  app.get('/', async (request) => {
    const caller = authenticate(state, request);
    const query = parsePayload(InteractionListQuery, request.query);
    const wanted = query.collection_id === undefined ? undefined : Number(query.collection_id);
    return builder
      .visibleInteractions(caller.organizationId)
      .filter((i) => wanted === undefined || i.collectionId === wanted)
      .sort(sorterFor(query.ordering))
      .map(listView);
  });

  app.get<{ Params: InteractionParams }>('/:interaction_id', async (request) => singleView(interactionOf(request, 'read').record));

  app.post<{ Params: InteractionParams }>('/:interaction_id/copy', async (request, reply) => {
    const { caller, record } = interactionOf(request, 'read');
    const options = parsePayload(CopyOptions, request.body ?? {});
    const copy = copyInteraction(state, builder, record, actorOf(caller), {
      collectionId: options.collection_id,
      forceUniqueName: options.forceUniqueName ?? false,
    });
    return reply.status(201).send(singleView(copy));
  });

  app.post<{ Params: InteractionParams }>('/:interaction_id/move', async (request) => {
    const { caller, record } = interactionOf(request, 'write');
    const body = parsePayload(MoveRequest, request.body ?? {});
    return singleView(moveInteraction(state, builder, record, actorOf(caller), body.collection_id));
  });
}
