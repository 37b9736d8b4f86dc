/**
 * Channel configurations, under /api/v5/orgs/<organization_id>/unified_messaging
 * (spec 03): register, list, read, replace, update, delete.
 */
import type { FastifyInstance } from 'fastify';
import {
  ChannelConfigurationCreate,
  ChannelConfigurationListQuery,
  ChannelConfigurationPatch,
} from '../../platform/schemas/unified-messaging.ts';
import {
  CONFIGURATION_ORDERING,
  configurationView,
  createConfiguration,
  patchConfiguration,
  replaceConfiguration,
  requireConfiguration,
} from '../configurations.ts';
import type { SandboxContext } from '../context.ts';
import { parsePayload } from '../http-errors.ts';
import { DEFAULT_PAGE_SIZE, pageUrl, paginate } from '../pagination.ts';

interface OrgParams {
  organization_id: string;
}
interface ConfigParams extends OrgParams {
  config_id: string;
}

export function registerChannelConfigurationRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const { state } = ctx;

  app.post<{ Params: OrgParams }>('/', async (request, reply) => {
    const input = parsePayload(ChannelConfigurationCreate, request.body);
    const record = createConfiguration(state, request.params.organization_id, input);
    return reply.status(201).send(configurationView(record, true));
  });

  app.get<{ Params: OrgParams }>('/', async (request) => {
    const query = parsePayload(ChannelConfigurationListQuery, request.query);
    const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
    const organizationId = request.params.organization_id;
    const page = paginate({
      items: [...state.configurations.values()].filter((c) => c.organizationId === organizationId),
      ordering: CONFIGURATION_ORDERING[query.ordering],
      cursor: query.cursor,
      pageSize,
      linkFor: (cursor) => pageUrl(request, { ordering: query.ordering, page_size: query.page_size }, cursor),
    });
    return { ...page, results: page.results.map((c) => configurationView(c, false)) };
  });

  app.get<{ Params: ConfigParams }>('/:config_id', async (request) => {
    const record = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    return configurationView(record, false);
  });

  app.put<{ Params: ConfigParams }>('/:config_id', async (request) => {
    const record = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    const input = parsePayload(ChannelConfigurationCreate, request.body);
    const change = replaceConfiguration(state, record, input);
    return configurationView(change.record, change.secretChanged);
  });

  app.patch<{ Params: ConfigParams }>('/:config_id', async (request) => {
    const record = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    const input = parsePayload(ChannelConfigurationPatch, request.body);
    const change = patchConfiguration(state, record, input);
    return configurationView(change.record, change.secretChanged);
  });

  app.delete<{ Params: ConfigParams }>('/:config_id', async (request, reply) => {
    const record = requireConfiguration(state, request.params.organization_id, request.params.config_id);
    state.configurations.delete(record.id);
    return reply.status(204).send();
  });
}
