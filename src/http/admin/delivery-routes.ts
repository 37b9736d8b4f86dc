/**
 * The webhook delivery log: list with the CLI's filters and an id cursor,
 * one delivery in full (headers, body, attempts, and the receipt the other
 * side reported of what was sent, by its external id), and a replay of one
 * delivery through its connector (a new `connector.deliver` job that
 * bypasses dedup and is recorded as a replay attempt).
 */
import { z } from 'zod';
import { RecordNotFoundError } from '../../bridge/errors.ts';
import type { DeliveryAttemptRow } from '../../store/attempts-repo.ts';
import type { DeliveryRow } from '../../store/deliveries-repo.ts';
import type { ReceiptRow } from '../../store/receipts-repo.ts';
import { listDeliveries, type DeliverySummary } from '../../store/log-queries.ts';
import { ATTEMPT_OUTCOMES, DELIVERY_STATUSES, RECEIPT_STATUSES } from '../../store/statuses.ts';
import {
  DEFAULT_LIMIT,
  IdParams,
  iso,
  IsoTime,
  JobQueued,
  pageOf,
  pageParams,
  parsedBody,
  statusList,
  textFilter,
  timeParam,
  toPage,
} from './fields.ts';
import { component, route } from './route-table.ts';

/** The filters deliveries are chosen by, here and in a bulk replay. */
export const deliveryFilterFields = {
  status: statusList(DELIVERY_STATUSES).optional(),
  connector: textFilter('The connector name.'),
  event: textFilter('The event type, e.g. message_created.'),
  thread: textFilter('The platform thread_id.'),
  since: timeParam('Received at or after: a duration ago (2h) or an ISO time.').optional(),
  until: timeParam('Received before: a duration ago or an ISO time.').optional(),
};

export const DeliveryQuery = z.strictObject({ ...deliveryFilterFields, ...pageParams });

const DeliveryStatus = z.enum(DELIVERY_STATUSES);

export const DeliverySummaryView = component(
  'DeliverySummary',
  z.object({
    id: z.number().int(),
    connector: z.string(),
    event_type: z.string().nullable(),
    status: DeliveryStatus,
    thread_id: z.string().nullable(),
    chat_id: z.string().nullable(),
    verification: z.string().meta({ description: 'valid, or why the signature check refused it.' }),
    error: z.string().nullable(),
    external_id: z.string().nullable(),
    attempts: z.number().int(),
    received_at: IsoTime,
    updated_at: IsoTime,
  }),
);

const DeliveryAttemptView = component(
  'DeliveryAttempt',
  z.object({
    id: z.number().int(),
    job_id: z.number().int().nullable(),
    attempt: z.number().int(),
    replay: z.boolean(),
    started_at: IsoTime,
    ended_at: IsoTime.nullable(),
    outcome: z.enum(ATTEMPT_OUTCOMES),
    error: z.string().nullable(),
    external_id: z.string().nullable(),
  }),
);

const DeliveryReceiptView = component(
  'DeliveryReceipt',
  z
    .object({
      status: z.enum(RECEIPT_STATUSES).meta({ description: 'The furthest status reported: sent < delivered < read; failed is final.' }),
      at: IsoTime.meta({ description: "When it happened, by the other side's clock." }),
      reason: z.string().nullable().meta({ description: "Why it failed, in the other side's words." }),
      recorded_at: IsoTime,
    })
    .meta({ description: "What the other side reported of the message sent (a chat app's delivered and read ticks), matched by external_id." }),
);

export const DeliveryDetailView = component(
  'DeliveryDetail',
  z.object({
    id: z.number().int(),
    connector: z.string(),
    event_type: z.string().nullable(),
    status: DeliveryStatus,
    dedup_key: z.string().nullable(),
    event_at: z.string().nullable().meta({
      description: "The event's created_at as the platform sent it: with dedup_key, what names the event ('' when platform.webhook_dedup is id).",
    }),
    duplicate_of: z.number().int().nullable(),
    thread_id: z.string().nullable(),
    chat_id: z.string().nullable(),
    verification: z.string(),
    error: z.string().nullable(),
    external_id: z.string().nullable(),
    job_id: z.number().int().nullable(),
    received_at: IsoTime,
    updated_at: IsoTime,
    headers: z.record(z.string(), z.unknown()),
    body: z.unknown().meta({ description: 'The webhook body: parsed when it is JSON, else the text.' }),
    body_truncated: z.boolean().meta({ description: 'Only the start of the body is kept (store.max_stored_body_bytes; store.refused.keep_body_bytes for a rejected one).' }),
    attempts: z.array(DeliveryAttemptView),
    receipt: DeliveryReceiptView.nullable(),
  }),
);

const DeliveryPage = component('DeliveryPage', pageOf(DeliverySummaryView));

const summaryView = (d: DeliverySummary): z.infer<typeof DeliverySummaryView> => ({
  id: d.id,
  connector: d.connector,
  event_type: d.eventType,
  status: d.status,
  thread_id: d.threadId,
  chat_id: d.chatId,
  verification: d.verification,
  error: d.error,
  external_id: d.externalId,
  attempts: d.attempts,
  received_at: iso(d.receivedAt) as string,
  updated_at: iso(d.updatedAt) as string,
});

const attemptView = (a: DeliveryAttemptRow): z.infer<typeof DeliveryAttemptView> => ({
  id: a.id,
  job_id: a.jobId,
  attempt: a.attempt,
  replay: a.replay,
  started_at: iso(a.startedAt) as string,
  ended_at: iso(a.endedAt),
  outcome: a.outcome,
  error: a.error,
  external_id: a.externalId,
});

const receiptView = (r: ReceiptRow | undefined): z.infer<typeof DeliveryReceiptView> | null =>
  r === undefined ? null : { status: r.status, at: iso(r.at) as string, reason: r.reason, recorded_at: iso(r.updatedAt) as string };

const detailView = (d: DeliveryRow, attempts: DeliveryAttemptRow[], receipt: ReceiptRow | undefined): z.infer<typeof DeliveryDetailView> => ({
  id: d.id,
  connector: d.connector,
  event_type: d.eventType,
  status: d.status,
  dedup_key: d.dedupKey,
  event_at: d.eventAt,
  duplicate_of: d.duplicateOf,
  thread_id: d.threadId,
  chat_id: d.chatId,
  verification: d.verification,
  error: d.error,
  external_id: d.externalId,
  job_id: d.jobId,
  received_at: iso(d.receivedAt) as string,
  updated_at: iso(d.updatedAt) as string,
  headers: d.headers,
  body: parsedBody(d.body),
  body_truncated: d.bodyTruncated,
  attempts: attempts.map(attemptView),
  receipt: receiptView(receipt),
});

export const deliveryRoutes = [
  route({
    method: 'GET',
    path: '/deliveries',
    operationId: 'listDeliveries',
    tag: 'deliveries',
    summary: 'List webhook deliveries, newest first',
    query: DeliveryQuery,
    response: DeliveryPage,
    async handle({ query }, { store }) {
      const { limit = DEFAULT_LIMIT, ...filter } = query;
      const rows = await listDeliveries(store.read.sql, { ...filter, limit });
      return toPage(rows, limit, async (before) => (await listDeliveries(store.read.sql, { ...filter, before, limit: 1 })).length > 0, summaryView);
    },
  }),
  route({
    method: 'GET',
    path: '/deliveries/:id',
    operationId: 'getDelivery',
    tag: 'deliveries',
    summary: 'One delivery with its headers, body, attempts and receipt',
    params: IdParams,
    response: DeliveryDetailView,
    errors: [404],
    async handle({ params }, { store }) {
      const delivery = await store.read.deliveries.byId(params.id);
      if (!delivery) throw new RecordNotFoundError(`no delivery ${params.id}`);
      const receipt = delivery.externalId === null ? undefined : await store.read.receipts.of(delivery.connector, delivery.externalId);
      return detailView(delivery, await store.read.attempts.ofDelivery(params.id), receipt);
    },
  }),
  route({
    method: 'POST',
    path: '/deliveries/:id/replay',
    operationId: 'replayDelivery',
    tag: 'deliveries',
    summary: 'Hand the delivery to its connector once more (bypasses dedup; recorded as a replay attempt)',
    description: '409 TG_NOT_REPLAYABLE when the delivery was rejected or its stored body was cut.',
    params: IdParams,
    status: 202,
    response: JobQueued,
    errors: [404, 409],
    async handle({ params }, { bridge }) {
      return { job_id: await bridge.replayer.replayDelivery(params.id) };
    },
  }),
];
