/**
 * Inbound messages and session closing, under
 * /api/v5/orgs/<organization_id>/unified_messaging/<config_id> (spec 03).
 */
import type { FastifyInstance } from 'fastify';
import { CloseSessionRequest, CreateMessagesRequest } from '../../platform/schemas/unified-messaging.ts';
import { requireConfiguration } from '../configurations.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { closeSession, ingestMessages } from '../sessions.ts';

interface ConfigParams {
  organization_id: string;
  config_id: string;
}

export function registerMessageRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  app.post<{ Params: ConfigParams }>('/:config_id/messages', async (request, reply) => {
    const config = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    const input = parsePayload(CreateMessagesRequest, request.body);
    return reply.status(201).send(ingestMessages(state, config, input));
  });

  app.post<{ Params: ConfigParams }>('/:config_id/close_session', async (request) => {
    const config = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    const input = parsePayload(CloseSessionRequest, request.body);
    return closeSession(state, config, input.thread_id);
  });
}
