/**
 * Collections under the builder address (spec 02): /api/v1/collections, and
 * the same routes under /api/v1/groups, the paths from before the interface
 * was renamed from groups to collections (spec 02, Versioning 2). The
 * organization is the caller's (the paths carry none).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CollectionWrite } from '../../platform/schemas/builder-collections.ts';
import { callerOf } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { builderStateOf, mayAccess } from './builder-state.ts';
import { collectionView, createCollection, deleteCollection, requireOwnCollection, updateCollection } from './collections.ts';

export const COLLECTION_PREFIXES = ['/api/v1/collections', '/api/v1/groups'] as const;

const CollectionParams = z.object({
  collection_id: z.string().regex(/^\d+$/, { error: 'Must be a collection ID (an integer).' }).transform(Number),
});

export function registerCollectionRoutes(app: FastifyInstance, ctx: SandboxContext, prefix: string): void {
  const { state } = ctx;
  const builder = builderStateOf(state);
  const idOf = (request: FastifyRequest) => parsePayload(CollectionParams, request.params).collection_id;

  const list = async (request: FastifyRequest) => {
    const caller = callerOf(state, request);
    return [...builder.collections.values()]
      .filter((c) => mayAccess(c, caller.organizationId, 'read'))
      .map(collectionView);
  };
  app.get(prefix, list);
  app.get(`${prefix}/`, list);

  for (const url of [prefix, `${prefix}/`]) {
    app.post(url, async (request, reply) => {
      const caller = callerOf(state, request);
      const input = parsePayload(CollectionWrite, request.body);
      return reply.status(201).send(collectionView(createCollection(state, builder, caller.organizationId, input)));
    });
  }

  app.get(`${prefix}/:collection_id`, async (request) => {
    const caller = callerOf(state, request);
    return collectionView(builder.requireCollection(idOf(request), caller.organizationId, 'read'));
  });

  app.post(`${prefix}/:collection_id`, async (request) => {
    const caller = callerOf(state, request);
    const record = requireOwnCollection(builder, idOf(request), caller.organizationId);
    const input = parsePayload(CollectionWrite, request.body);
    return collectionView(updateCollection(state, builder, record, input));
  });

  app.delete(`${prefix}/:collection_id`, async (request, reply) => {
    const caller = callerOf(state, request);
    deleteCollection(builder, requireOwnCollection(builder, idOf(request), caller.organizationId));
    return reply.status(200).send();
  });
}
