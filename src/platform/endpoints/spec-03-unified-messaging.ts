/**
 * Spec 03's unified messaging endpoints, as data: channel configurations
 * (list, create, read, replace, update, delete), message creation and
 * closing a session. The rest of spec 03 is in spec-03.ts.
 */
import { Collection } from '../schemas/channel-messaging.ts';
import {
  ChannelConfiguration,
  ChannelConfigurationCreate,
  ChannelConfigurationListQuery,
  ChannelConfigurationPatch,
  CloseSessionRequest,
  CloseSessionResponse,
  CreateMessagesRequest,
  CreateMessagesResponse,
} from '../schemas/unified-messaging.ts';
import { section } from './types.ts';

const UM = '/api/v5/orgs/<organization_id>/unified_messaging';
const CONFIG = `${UM}/<config_id>`;
const UNIFIED_MESSAGING = '03 Unified messaging';

export const SPEC_03_UNIFIED_MESSAGING = section(UNIFIED_MESSAGING, [
  {
    id: 'createChannelConfiguration',
    method: 'POST',
    path: UM,
    summary: 'Register channel configuration (201, webhook_secret_key included)',
    body: ChannelConfigurationCreate,
    response: ChannelConfiguration,
  },
  {
    id: 'listChannelConfigurations',
    method: 'GET',
    path: UM,
    summary: 'List channel configurations (ordering, cursor)',
    query: ChannelConfigurationListQuery,
    // Wrapper shape not shown (docs/decisions/collection-wrapper.md): the spec 01 wrapper, or a bare array.
    response: Collection(ChannelConfiguration),
  },
  {
    id: 'getChannelConfiguration',
    method: 'GET',
    path: CONFIG,
    summary: 'One channel configuration',
    response: ChannelConfiguration,
  },
  {
    id: 'replaceChannelConfiguration',
    method: 'PUT',
    path: CONFIG,
    summary: 'Replace all fields of a channel configuration; required fields must be present',
    body: ChannelConfigurationCreate,
    response: ChannelConfiguration,
  },
  {
    id: 'updateChannelConfiguration',
    method: 'PATCH',
    path: CONFIG,
    summary: 'Update the supplied writable fields of a channel configuration',
    body: ChannelConfigurationPatch,
    response: ChannelConfiguration,
  },
  {
    id: 'deleteChannelConfiguration',
    method: 'DELETE',
    path: CONFIG,
    summary: 'Permanently remove a channel configuration (204, empty body)',
  },
  {
    id: 'createUnifiedMessages',
    method: 'POST',
    path: `${CONFIG}/messages`,
    summary: 'Create messages of one external thread (201)',
    body: CreateMessagesRequest,
    response: CreateMessagesResponse,
  },
  {
    id: 'closeUnifiedSession',
    method: 'POST',
    path: `${CONFIG}/close_session`,
    summary: 'Close the chat session of an external thread',
    body: CloseSessionRequest,
    response: CloseSessionResponse,
  },
]);

/** The list with its literal types, for the typed client. */
