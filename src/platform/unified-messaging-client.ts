/**
 * The platform's unified messaging API (spec 03) and the owned-chat calls the
 * session flow needs (spec 01), bound to one organization.
 *
 * Each request body and query is checked with its strict schema before
 * anything is sent (PlatformRequestInvalidError names the field paths), and
 * what is sent is the schema's output, documented defaults filled in. Each
 * answer is parsed with its loose schema (PlatformResponseError otherwise).
 */
import type { z } from 'zod';
import { PlatformClientOptionsError, PlatformRequestInvalidError, PlatformResponseError, zodIssues } from './errors.ts';
import type { CallOptions, HttpMethod, PlatformHttpClient } from './http-client.ts';
import { Chat, EndChatRequest } from './schemas/chats.ts';
import { Paginated, type Page } from './schemas/pagination.ts';
import {
  ChannelConfiguration,
  ChannelConfigurationCreate,
  ChannelConfigurationListQuery,
  ChannelConfigurationPatch,
  CloseSessionRequest,
  CloseSessionResponse,
  CreateMessagesRequest,
  CreateMessagesResponse,
  type CONFIGURATION_ORDERINGS,
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

/**
 * The spec does not show the list wrapper; the platform's usual one is
 * expected, and a bare array (an unpaginated list) is read as one last page.
 */
const ConfigurationPage = Paginated(ChannelConfiguration).or(
  ChannelConfiguration.array().transform((results) => ({ next: null, previous: null, results })),
);

export function createUnifiedMessagingClient(deps: {
  http: PlatformHttpClient;
  organizationId: string;
}): UnifiedMessagingClient {
  const { http, organizationId } = deps;
  if (!isSegment(organizationId)) throw new PlatformClientOptionsError('organizationId must be a non-empty id');
  const orgPath = `/api/v5/orgs/${encodeURIComponent(organizationId)}`;
  const collection = `${orgPath}/unified_messaging`;
  const one = (method: HttpMethod, id: string) => `${collection}/${segment(method, `${collection}/{id}`, 'id', id)}`;
  const chat = (method: HttpMethod, chatId: string) =>
    `${orgPath}/owned_chats/${segment(method, `${orgPath}/owned_chats/{chat_id}`, 'chat_id', chatId)}`;

  function send<S extends z.ZodType>(
    method: HttpMethod,
    path: string,
    schema: S,
    body: unknown,
    options: CallOptions | undefined,
  ): Promise<z.output<S>> {
    return http.requestJson({ ...pick(options), method, path, body }, schema);
  }

  async function getPage(path: string, query: Record<string, string | number | undefined>, options?: CallOptions) {
    return http.requestJson({ ...pick(options), method: 'GET', path, query }, ConfigurationPage);
  }

  const client: UnifiedMessagingClient = {
    organizationId,

    createConfiguration: async (body, options) =>
      send('POST', collection, ChannelConfiguration, valid(ChannelConfigurationCreate, body, 'POST', collection), options),

    async listConfigurationsPage(options = {}) {
      const query = valid(
        ChannelConfigurationListQuery,
        { ordering: options.ordering, page_size: options.pageSize, cursor: options.cursor },
        'GET',
        collection,
      );
      return getPage(collection, query, options);
    },

    async *listConfigurations(options = {}) {
      let page = await client.listConfigurationsPage(options);
      const seen = new Set<string>();
      for (;;) {
        yield* page.results;
        if (page.next === null) return;
        const next = http.pathOfLink(page.next);
        // A `next` that points back to a page already read would loop forever.
        if (seen.has(next)) {
          throw new PlatformResponseError({ method: 'GET', path: next, attempts: 1 }, 200, [
            { path: 'next', message: 'links to a page already read' },
          ], undefined);
        }
        seen.add(next);
        page = await getPage(next, {}, options);
      }
    },

    getConfiguration: async (id, options) => send('GET', one('GET', id), ChannelConfiguration, undefined, options),

    async replaceConfiguration(id, body, options) {
      const path = one('PUT', id);
      return send('PUT', path, ChannelConfiguration, valid(ChannelConfigurationCreate, body, 'PUT', path), options);
    },

    async patchConfiguration(id, body, options) {
      const path = one('PATCH', id);
      return send('PATCH', path, ChannelConfiguration, valid(ChannelConfigurationPatch, body, 'PATCH', path), options);
    },

    async deleteConfiguration(id, options) {
      await http.request({ ...pick(options), method: 'DELETE', path: one('DELETE', id) });
    },

    async createMessages(configId, body, options) {
      const path = `${one('POST', configId)}/messages`;
      return send('POST', path, CreateMessagesResponse, valid(CreateMessagesRequest, body, 'POST', path), options);
    },

    async closeSession(configId, threadId, options) {
      const path = `${one('POST', configId)}/close_session`;
      const body = valid(CloseSessionRequest, { thread_id: threadId }, 'POST', path);
      return send('POST', path, CloseSessionResponse, body, options);
    },

    getOwnedChat: async (chatId, options) => send('GET', chat('GET', chatId), Chat, undefined, options),

    async endOwnedChat(chatId, options) {
      const path = chat('PATCH', chatId);
      return send('PATCH', path, Chat, valid(EndChatRequest, { is_ended: true }, 'PATCH', path), options);
    },
  };
  return client;
}

/** The schema's output for `input`, or PlatformRequestInvalidError naming every bad field. */
function valid<S extends z.ZodType>(schema: S, input: unknown, method: HttpMethod, path: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new PlatformRequestInvalidError(method, path, zodIssues(parsed.error));
}

/** One encoded path segment; refused when empty, `.` or `..`, which would name another resource. */
function segment(method: HttpMethod, template: string, name: string, value: string): string {
  if (!isSegment(value)) throw new PlatformRequestInvalidError(method, template, [{ path: name, message: 'must be a non-empty id' }]);
  return encodeURIComponent(value);
}

function isSegment(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..';
}

/** Only the call options, never a stray key of a wider object. */
function pick(options: CallOptions | undefined): CallOptions {
  if (options === undefined) return {};
  const { timeoutMs, retry, signal } = options;
  return {
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(retry === undefined ? {} : { retry }),
    ...(signal === undefined ? {} : { signal }),
  };
}
