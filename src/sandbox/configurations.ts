/**
 * Channel configurations (spec 03): create, replace, patch, the view a client
 * sees, and the orderings of the listing.
 *
 * `webhook_secret_key` appears in a response only on create and when PUT or
 * PATCH changed it: a different value was supplied, or null asked for a
 * freshly generated one. An omitted key keeps the current secret.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  DEFAULT_MAX_RETRY_COUNT,
  type CONFIGURATION_ORDERINGS,
  type ChannelConfiguration,
  type ChannelConfigurationCreate,
  type ChannelConfigurationPatch,
} from '../platform/schemas/unified-messaging.ts';
import { SandboxNotFoundError, SandboxValidationError } from './errors.ts';
import type { ChannelConfigurationRecord } from './model.ts';
import type { Ordering } from './pagination.ts';
import type { SandboxState } from './state.ts';

type CreateInput = z.output<typeof ChannelConfigurationCreate>;
type PatchInput = z.output<typeof ChannelConfigurationPatch>;

export interface ConfigurationChange {
  record: ChannelConfigurationRecord;
  secretChanged: boolean;
}

function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

export function configurationView(record: ChannelConfigurationRecord, includeSecret: boolean): ChannelConfiguration {
  return {
    id: record.id,
    name: record.name,
    messaging_channel: record.messagingChannel,
    organization_id: record.organizationId,
    room_id: record.roomId,
    reply_webhook_url: record.replyWebhookUrl,
    max_retry_count: record.maxRetryCount,
    ...(includeSecret ? { webhook_secret_key: record.webhookSecretKey } : {}),
    created_at: new Date(record.createdAt).toISOString(),
    modified_at: new Date(record.modifiedAt).toISOString(),
  };
}

/** The configuration of this organization, or 404 (another organization's is "not found" too). */
export function requireConfiguration(state: SandboxState, organizationId: string, id: string): ChannelConfigurationRecord {
  const record = state.configurations.get(id);
  if (!record || record.organizationId !== organizationId) {
    throw new SandboxNotFoundError('Channel configuration not found.');
  }
  return record;
}

/** The room must exist and belong to the configuration's organization: 400 on `room_id` otherwise. */
function assertRoomUsable(state: SandboxState, organizationId: string, roomId: string): void {
  const room = state.rooms.get(roomId);
  if (!room) throw SandboxValidationError.field('room_id', 'Room not found.');
  if (room.organizationId !== organizationId) {
    throw SandboxValidationError.field('room_id', 'Room belongs to a different organization.');
  }
}

/** undefined keeps the current secret, null generates a new one, a string sets it. */
function nextSecret(current: string, supplied: string | null | undefined): string {
  if (supplied === undefined) return current;
  return supplied ?? generateSecret();
}

export function createConfiguration(state: SandboxState, organizationId: string, input: CreateInput): ChannelConfigurationRecord {
  assertRoomUsable(state, organizationId, input.room_id);
  const now = state.now();
  const record: ChannelConfigurationRecord = {
    id: randomUUID(),
    organizationId,
    name: input.name,
    messagingChannel: input.messaging_channel,
    roomId: input.room_id,
    replyWebhookUrl: input.reply_webhook_url,
    maxRetryCount: input.max_retry_count ?? DEFAULT_MAX_RETRY_COUNT,
    webhookSecretKey: input.webhook_secret_key ?? generateSecret(),
    createdAt: now,
    modifiedAt: now,
  };
  state.configurations.set(record.id, record);
  return record;
}

/** PUT: every writable field is replaced; an omitted max_retry_count returns to its default. */
export function replaceConfiguration(
  state: SandboxState,
  record: ChannelConfigurationRecord,
  input: CreateInput,
): ConfigurationChange {
  return patchConfiguration(state, record, { ...input, max_retry_count: input.max_retry_count ?? DEFAULT_MAX_RETRY_COUNT });
}

/** PATCH: only the supplied fields change. */
export function patchConfiguration(
  state: SandboxState,
  record: ChannelConfigurationRecord,
  input: PatchInput,
): ConfigurationChange {
  if (input.room_id !== undefined) assertRoomUsable(state, record.organizationId, input.room_id);
  const secret = nextSecret(record.webhookSecretKey, input.webhook_secret_key);
  const secretChanged = secret !== record.webhookSecretKey;
  record.name = input.name ?? record.name;
  record.messagingChannel = input.messaging_channel ?? record.messagingChannel;
  record.roomId = input.room_id ?? record.roomId;
  record.replyWebhookUrl = input.reply_webhook_url ?? record.replyWebhookUrl;
  record.maxRetryCount = input.max_retry_count ?? record.maxRetryCount;
  record.webhookSecretKey = secret;
  record.modifiedAt = state.now();
  return { record, secretChanged };
}

type OrderingName = (typeof CONFIGURATION_ORDERINGS)[number];

export const CONFIGURATION_ORDERING: Record<OrderingName, Ordering<ChannelConfigurationRecord>> = {
  created_at: { name: 'created_at', descending: false, keyOf: (c) => [c.createdAt, c.id] },
  '-created_at': { name: '-created_at', descending: true, keyOf: (c) => [c.createdAt, c.id] },
  modified_at: { name: 'modified_at', descending: false, keyOf: (c) => [c.modifiedAt, c.id] },
  '-modified_at': { name: '-modified_at', descending: true, keyOf: (c) => [c.modifiedAt, c.id] },
  messaging_channel: { name: 'messaging_channel', descending: false, keyOf: (c) => [c.messagingChannel, c.id] },
};
