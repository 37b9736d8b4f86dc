/**
 * The platform's unified messaging API (spec 03) and the owned-chat calls the
 * session flow needs (spec 01), bound to one organization.
 *
 * A thin face over the typed client (`client.ts`) for the bridge, made of
 * the endpoints it calls alone (a gateway does not load every endpoint's
 * schemas; docs/decisions/footprint.md): each
 * request body and query is checked with its strict schema before anything
 * is sent (PlatformRequestInvalidError names the field paths), what is sent
 * is the schema's output, documented defaults filled in, and each answer is
 * parsed with its loose schema (PlatformResponseError otherwise).
 */
import type { PlatformClient } from './client.ts';
import { callOptions, createEndpointClient, isPathSegment } from './endpoint-client.ts';
import { OWNED_CHAT_CALLS } from './endpoints/spec-01-owned-chats.ts';
import { SPEC_03_UNIFIED_MESSAGING } from './endpoints/spec-03-unified-messaging.ts';
import { PlatformClientOptionsError } from './errors.ts';
import type { PlatformHttpClient } from './http-client.ts';
import type { CallOptions } from './http-request.ts';
import type { Chat } from './schemas/chats.ts';
import type { Page } from './schemas/pagination.ts';
import type {
  ChannelConfiguration,
  ChannelConfigurationCreate,
  ChannelConfigurationPatch,
  CloseSessionResponse,
  CreateMessagesRequest,
  CreateMessagesResponse,
  CONFIGURATION_ORDERINGS,
} from './schemas/unified-messaging.ts';

export interface ListConfigurationsOptions extends CallOptions {
  ordering?: (typeof CONFIGURATION_ORDERINGS)[number];
  pageSize?: number;
}

export interface ListConfigurationsPageOptions extends ListConfigurationsOptions {
  /** The opaque cursor of a page; absent for the first. */
  cursor?: string;
}

export interface UnifiedMessagingClient {
  readonly organizationId: string;
  createConfiguration(body: ChannelConfigurationCreate, options?: CallOptions): Promise<ChannelConfiguration>;
  /** Every configuration, following `next` from page to page. */
  listConfigurations(options?: ListConfigurationsOptions): AsyncGenerator<ChannelConfiguration, void, undefined>;
  listConfigurationsPage(options?: ListConfigurationsPageOptions): Promise<Page<ChannelConfiguration>>;
  getConfiguration(id: string, options?: CallOptions): Promise<ChannelConfiguration>;
  /** PUT: all required fields present. */
  replaceConfiguration(id: string, body: ChannelConfigurationCreate, options?: CallOptions): Promise<ChannelConfiguration>;
  patchConfiguration(id: string, body: ChannelConfigurationPatch, options?: CallOptions): Promise<ChannelConfiguration>;
  deleteConfiguration(id: string, options?: CallOptions): Promise<void>;
  createMessages(configId: string, body: CreateMessagesRequest, options?: CallOptions): Promise<CreateMessagesResponse>;
  closeSession(configId: string, threadId: string, options?: CallOptions): Promise<CloseSessionResponse>;
  getOwnedChat(chatId: string, options?: CallOptions): Promise<Chat>;
  /** PATCH `{ is_ended: true }`. */
  endOwnedChat(chatId: string, options?: CallOptions): Promise<Chat>;
}

/** The endpoints the bridge calls: unified messaging (spec 03) and the owned-chat reads and ends (spec 01). */
const UM_ENDPOINTS = [...SPEC_03_UNIFIED_MESSAGING, ...OWNED_CHAT_CALLS] as const;
type UmPlatform = Pick<PlatformClient, (typeof UM_ENDPOINTS)[number]['id'] | 'paginate'>;

export function createUnifiedMessagingClient(deps: {
  http: PlatformHttpClient;
  organizationId: string;
}): UnifiedMessagingClient {
  const { http, organizationId } = deps;
  if (!isPathSegment(organizationId)) throw new PlatformClientOptionsError('organizationId must be a non-empty id');
  // The gateway's calls go through the typed client: the same endpoint lists, schemas and checks as everyone's.
  const platform = createEndpointClient(UM_ENDPOINTS, { http, organizationId }) as unknown as UmPlatform;
  const config = (id: string) => ({ config_id: id });

  const client: UnifiedMessagingClient = {
    organizationId,

    createConfiguration: (body, options) => platform.createChannelConfiguration({ ...callOptions(options), body }),

    async listConfigurationsPage(options = {}) {
      const query = { ordering: options.ordering, page_size: options.pageSize, cursor: options.cursor };
      return asPage(await platform.listChannelConfigurations({ ...callOptions(options), query }));
    },

    listConfigurations: (options = {}) =>
      platform.paginate('listChannelConfigurations', {
        ...callOptions(options),
        query: { ordering: options.ordering, page_size: options.pageSize },
      }),

    getConfiguration: (id, options) => platform.getChannelConfiguration({ ...callOptions(options), params: config(id) }),

    replaceConfiguration: (id, body, options) =>
      platform.replaceChannelConfiguration({ ...callOptions(options), params: config(id), body }),

    patchConfiguration: (id, body, options) =>
      platform.updateChannelConfiguration({ ...callOptions(options), params: config(id), body }),

    async deleteConfiguration(id, options) {
      await platform.deleteChannelConfiguration({ ...callOptions(options), params: config(id) });
    },

    createMessages: (configId, body, options) =>
      platform.createUnifiedMessages({ ...callOptions(options), params: config(configId), body }),

    closeSession: (configId, threadId, options) =>
      platform.closeUnifiedSession({ ...callOptions(options), params: config(configId), body: { thread_id: threadId } }),

    getOwnedChat: (chatId, options) => platform.getOwnedChat({ ...callOptions(options), params: { chat_id: chatId } }),

    endOwnedChat: (chatId, options) =>
      platform.endOwnedChat({ ...callOptions(options), params: { chat_id: chatId }, body: { is_ended: true } }),
  };
  return client;
}

/** The spec does not show the list wrapper; a bare array (an unpaginated list) is read as one last page. */
function asPage<T>(answer: Page<T> | T[]): Page<T> {
  return Array.isArray(answer) ? { next: null, previous: null, results: answer } : answer;
}
