/**
 * The sandbox's Fastify app, built apart from `listen()`: every family of the
 * platform's API paths (each registered from its own folder or route module)
 * and the control API under /_sandbox.
 * Closing the app stops webhook deliveries (pending retries and requests in
 * flight).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { requireAccess } from './auth.ts';
import { registerChannelMessaging } from './channel-messaging/index.ts';
import type { SandboxContext } from './context.ts';
import { installErrorHandlers } from './http-errors.ts';
import { registerFileRoutes } from './message-files.ts';
import { resolveOptions, type ResolvedSandboxOptions, type SandboxOptions } from './options.ts';
import { registerChannelConfigurationRoutes } from './routes/channel-configurations.ts';
import { registerControlAdminRoutes } from './routes/control-admin.ts';
import { registerControlChatRoutes } from './routes/control-chats.ts';
import { registerMessageRoutes } from './routes/messages.ts';
import { registerOwnedChatRoutes } from './routes/owned-chats.ts';
import { registerEventListing } from './events/index.ts';
import { registerReporting } from './reporting/index.ts';
import { registerBuilder } from './builder/index.ts';
import { registerForms } from './forms/index.ts';
import { registerSignIn } from './sign-in/index.ts';
import { registerChatsAndUsers } from './chats-and-users.ts';
import { requireOrganizationPermissions } from './permissions.ts';
import { registerOwnedChatListRoute } from './routes/chat-listings.ts';
import { readSandboxFile, SandboxSaver } from './persistence.ts';
import { SETTINGS_SCOPE, SandboxState, seedState, type Seed } from './state.ts';
import { WebhookDispatcher } from './webhook-dispatcher.ts';
import { ROUTE_SCHEMAS_OFF } from '../base/route-schemas-off.ts';

const ORG_PATH = '/api/v5/orgs/:organization_id';

export interface SandboxApp {
  app: FastifyInstance;
  state: SandboxState;
  seed: Seed;
  options: ResolvedSandboxOptions;
  /** With `persistFile`: the writer of its state, and where the sandbox listened last (undefined: never, or no file). */
  saver?: SandboxSaver;
  lastUrl?: string | undefined;
}

export function buildSandboxApp(options: SandboxOptions = {}): SandboxApp {
  const resolved = resolveOptions(options);
  const logger = resolved.logger === false ? undefined : resolved.logger;
  const state = new SandboxState();
  const saved = resolved.persistFile === undefined ? undefined : readSandboxFile(resolved.persistFile);
  if (saved) state.restore(saved.state);
  const seed = saved?.seed ?? seedState(state, resolved);
  const saver = resolved.persistFile === undefined ? undefined : new SandboxSaver(resolved.persistFile, state, seed);
  const webhooks = new WebhookDispatcher({
    state,
    retryBaseMs: resolved.retryBaseMs,
    timeoutMs: resolved.webhookTimeoutMs,
    signaturePayload: resolved.signaturePayload,
    logger,
  });
  const ctx: SandboxContext = { state, seed, webhooks };

  const app = Fastify({
    ...(logger ? { loggerInstance: logger as FastifyBaseLogger } : { logger: false }),
    ...(resolved.requestLogLevel === 'debug' ? { logController: new RequestLinesAtDebug() } : {}),
    return503OnClosing: true,
    forceCloseConnections: true,
    // Its routes check their input with zod: Fastify need not load Ajv or fast-json-stringify.
    schemaController: ROUTE_SCHEMAS_OFF,
  });
  installErrorHandlers(app);
  app.addHook('onClose', async () => webhooks.close());
  if (saver) {
    // Every change comes of a request that is not a read (the webhooks' attempts only record what those caused).
    app.addHook('onResponse', async (request) => {
      if (request.method !== 'GET' && request.method !== 'HEAD') saver.changed();
    });
    app.addHook('onClose', async () => saver.flush());
  }

  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireAccess(state, SETTINGS_SCOPE));
      registerChannelConfigurationRoutes(scope, ctx);
      registerMessageRoutes(scope, ctx);
    },
    { prefix: `${ORG_PATH}/unified_messaging` },
  );
  void app.register(
    async (scope) => {
      scope.addHook('onRequest', requireAccess(state));
      scope.addHook('onRequest', requireOrganizationPermissions(state, { reports: 'private-history' }));
      registerOwnedChatListRoute(scope, ctx);
      registerOwnedChatRoutes(scope, ctx);
    },
    { prefix: `${ORG_PATH}/owned_chats` },
  );
  void app.register(async (scope) => registerControlChatRoutes(scope, ctx), { prefix: '/_sandbox/chats' });
  void app.register(async (scope) => registerControlAdminRoutes(scope, ctx), { prefix: '/_sandbox' });
  registerFileRoutes(app, state);
  registerSignIn(app, ctx);
  registerChatsAndUsers(app, ctx);
  void app.register(async (scope) => registerReporting(scope, ctx));
  void app.register(async (scope) => registerEventListing(scope, ctx));
  void app.register(async (scope) => registerBuilder(scope, ctx));
  void app.register(async (scope) => registerForms(scope, ctx));
  registerChannelMessaging(app, ctx);

  return { app, state, seed, options: resolved, ...(saver ? { saver, lastUrl: saved?.url ?? undefined } : {}) };
}

/** Fastify's two lines of each request (`incoming request`, `request completed`) at debug instead of info; errors as before. */
class RequestLinesAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
    else if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
