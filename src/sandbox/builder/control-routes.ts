/**
 * The builder's part of the control API (no auth): themes, whose fields and
 * endpoints spec 02 does not show, so tests and users can add one to a
 * collection (a collection holding a theme cannot be deleted) and remove it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SandboxContext } from '../context.ts';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { builderStateOf } from './builder-state.ts';

const ThemeBody = z.strictObject({
  collection_id: z.number().int(),
  name: z.string().trim().min(1, { error: 'This field may not be blank.' }).optional(),
});
const ThemeParams = z.object({ theme_id: z.string().regex(/^\d+$/).transform(Number) });

export function registerBuilderControlRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const builder = builderStateOf(ctx.state);

  app.post('/themes', async (request, reply) => {
    const body = parsePayload(ThemeBody, request.body);
    if (!builder.collections.has(body.collection_id)) throw SandboxValidationError.field('collection_id', 'Collection not found.');
    const theme = builder.addTheme(body.collection_id, body.name ?? 'Theme');
    return reply.status(201).send({ id: theme.id, collection_id: theme.collectionId, name: theme.name });
  });

  app.delete('/themes/:theme_id', async (request, reply) => {
    const { theme_id } = parsePayload(ThemeParams, request.params);
    if (!builder.themes.delete(theme_id)) throw new SandboxNotFoundError('Theme not found.');
    return reply.status(204).send();
  });
}
