/**
 * The control API of sign-in, under /_sandbox (no auth):
 *
 *   POST   /_sandbox/apps             register an app → 201 with client_id and client_secret
 *   GET    /_sandbox/apps             every app (secrets included: it is a sandbox)
 *   GET    /_sandbox/apps/<client_id>
 *   PATCH  /_sandbox/apps/<client_id> name, redirect_uris, enabled (false: invalid_client)
 *   DELETE /_sandbox/apps/<client_id> → 204
 *   DELETE /_sandbox/sign_in_sessions  sign every browser out → {ended}
 *   GET    /_sandbox/sign_in_state     what sign-in holds → {pending_codes, implicit_tokens}
 *                                      (expired ones count until the next issue of their kind sweeps them)
 *
 * Redirect URIs must be https, except http to a loopback host, which the
 * sandbox accepts (the platform would not) and flags in `notes`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SandboxNotFoundError, SandboxValidationError } from '../errors.ts';
import { parsePayload } from '../http-errors.ts';
import { implicitTokenCount } from './access-tokens.ts';
import { checkRedirectUri, type AppRecord } from './apps.ts';
import type { SignInContext } from './context.ts';

const LOOPBACK_NOTE =
  'Plain http redirect URIs to a loopback host are accepted by the sandbox only; the platform requires https redirect URIs.';

const redirectUris = z.array(z.string()).min(1, { error: 'Give at least one redirect URI.' });
const AppBody = z.strictObject({
  name: z.string().trim().min(1).optional(),
  client_id: z.uuid({ error: 'client_id must be a UUID.' }).optional(),
  client_secret: z.string().min(16, { error: 'client_secret must have at least 16 characters.' }).optional(),
  redirect_uris: redirectUris,
  enabled: z.boolean().optional(),
});
const AppPatch = z.strictObject({ name: z.string().trim().min(1).optional(), redirect_uris: redirectUris.optional(), enabled: z.boolean().optional() });
const ClientIdParams = z.object({ client_id: z.string() });

/** Refuses the list if any URI is not allowed; true when some are loopback http. */
function checkedUris(uris: string[]): boolean {
  let loopback = false;
  uris.forEach((uri, i) => {
    const { problem, loopbackHttp } = checkRedirectUri(uri);
    if (problem !== undefined) throw SandboxValidationError.field(`redirect_uris.${i}`, problem);
    loopback ||= loopbackHttp;
  });
  return loopback;
}

function appView(app: AppRecord) {
  const loopback = app.redirectUris.some((uri) => checkRedirectUri(uri).loopbackHttp);
  return {
    client_id: app.clientId,
    client_secret: app.secret,
    name: app.name,
    redirect_uris: app.redirectUris,
    enabled: app.enabled,
    created_at: new Date(app.createdAt).toISOString(),
    notes: loopback ? [LOOPBACK_NOTE] : [],
  };
}

export function registerControlAppRoutes(app: FastifyInstance, ctx: SignInContext): void {
  const find = (params: unknown) => {
    const { client_id } = ClientIdParams.parse(params);
    const found = ctx.apps.get(client_id);
    if (found === undefined) throw new SandboxNotFoundError('App not found.');
    return found;
  };

  app.post('/apps', async (request, reply) => {
    const body = parsePayload(AppBody, request.body);
    checkedUris(body.redirect_uris);
    if (body.client_id !== undefined && ctx.apps.has(body.client_id)) {
      throw SandboxValidationError.field('client_id', 'An app with this client_id exists.');
    }
    const registered = ctx.apps.register({
      clientId: body.client_id,
      secret: body.client_secret,
      name: body.name ?? 'Sandbox app',
      redirectUris: body.redirect_uris,
      enabled: body.enabled,
    });
    return reply.status(201).send(appView(registered));
  });

  app.get('/apps', async () => ({ results: ctx.apps.list().map(appView) }));
  app.get('/apps/:client_id', async (request) => appView(find(request.params)));

  app.patch('/apps/:client_id', async (request) => {
    const found = find(request.params);
    const body = parsePayload(AppPatch, request.body);
    if (body.redirect_uris !== undefined) checkedUris(body.redirect_uris);
    const updated = ctx.apps.update(found.clientId, {
      ...(body.name === undefined ? {} : { name: body.name }),
      ...(body.redirect_uris === undefined ? {} : { redirectUris: body.redirect_uris }),
      ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
    });
    return appView(updated ?? found);
  });

  app.delete('/apps/:client_id', async (request, reply) => {
    ctx.apps.delete(find(request.params).clientId);
    return reply.status(204).send();
  });

  app.delete('/sign_in_sessions', async () => ({ ended: ctx.sessions.clear() }));

  app.get('/sign_in_state', async () => ({ pending_codes: ctx.codes.size, implicit_tokens: implicitTokenCount(ctx.state) }));
}
