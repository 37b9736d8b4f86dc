/**
 * The external → platform half of the log: inbound messages with the CLI's
 * filters, one message with its platform POST attempts, and a retry that
 * puts a dead message back in its thread's list and queues the flush — one
 * by id, or every dead one a filter matches.
 */
import { z } from 'zod';
import { RecordNotFoundError } from '../../bridge/errors.ts';
import type { InboundAttemptRow } from '../../store/attempts-repo.ts';
import type { InboundRow } from '../../store/inbound-repo.ts';
import { listInbound, type InboundSummary } from '../../store/log-queries.ts';
import { INBOUND_KINDS, INBOUND_OUTCOMES, INBOUND_STATUSES } from '../../store/statuses.ts';
import type { ThreadRow } from '../../store/threads-repo.ts';
import { deadStatus, DEFAULT_LIMIT, dryRun, IdParams, iso, IsoTime, JobQueued, pageOf, pageParams, statusList, textFilter, timeParam, toPage } from './fields.ts';
import { component, route } from './route-table.ts';

/** The filters inbound messages are chosen by, here and in a bulk retry. */
const inboundFilterFields = {
  connector: textFilter('The connector name.'),
  thread: textFilter('The platform thread_id.'),
  since: timeParam('Received at or after: a duration ago (2h) or an ISO time.').optional(),
  until: timeParam('Received before: a duration ago or an ISO time.').optional(),
};

export const InboundQuery = z.strictObject({ status: statusList(INBOUND_STATUSES).optional(), ...inboundFilterFields, ...pageParams });

const InboundRetryRequest = component(
  'InboundRetryRequest',
  z.strictObject({ status: deadStatus, ...inboundFilterFields, dry_run: dryRun }),
);

const InboundRetryResult = component(
  'InboundRetryResult',
  z.object({
    dry_run: z.boolean(),
    matched: z.number().int().meta({ description: 'Dead messages the filter matched.' }),
    queued: z.number().int().meta({ description: 'Of those, queued again (0 on a dry run).' }),
    ids: z.array(z.number().int()).meta({ description: 'The matched messages, oldest first.' }),
    retried: z.array(z.object({ id: z.number().int(), job_id: z.number().int() })),
    skipped: z.array(z.object({ id: z.number().int(), reason: z.string() })).meta({ description: 'Matched but no longer dead when their turn came.' }),
  }),
);

const InboundStatus = z.enum(INBOUND_STATUSES);

const InboundSummaryView = component(
  'InboundSummary',
  z.object({
    id: z.number().int(),
    connector: z.string(),
    kind: z.enum(INBOUND_KINDS),
    external_id: z.string(),
    thread_id: z.string(),
    sender_id: z.string(),
    status: InboundStatus,
    chat_id: z.string().nullable(),
    last_error: z.string().nullable(),
    attempts: z.number().int(),
    received_at: IsoTime,
    posted_at: IsoTime.nullable(),
  }),
);

const InboundAttemptView = component(
  'InboundAttempt',
  z.object({
    id: z.number().int(),
    job_id: z.number().int().nullable(),
    attempt: z.number().int(),
    started_at: IsoTime,
    ended_at: IsoTime,
    outcome: z.enum(INBOUND_OUTCOMES),
    status: z.number().int().nullable().meta({ description: 'The platform HTTP status, when it answered.' }),
    error: z.string().nullable(),
    chat_id: z.string().nullable(),
  }),
);

const InboundDetailView = component(
  'InboundDetail',
  z.object({
    id: z.number().int(),
    connector: z.string(),
    kind: z.enum(INBOUND_KINDS),
    external_id: z.string(),
    thread_key: z.string().nullable(),
    thread_id: z.string().nullable(),
    sender_id: z.string(),
    sender_name: z.string().nullable(),
    sender_type: z.enum(['visitor', 'user']),
    body: z.string(),
    full_text: z.string().nullable(),
    variables: z.record(z.string(), z.string().nullable()).nullable(),
    skip_waiting_state: z.boolean(),
    close_session: z.boolean(),
    status: InboundStatus,
    chat_id: z.string().nullable(),
    platform_message_id: z.string().nullable(),
    last_error: z.string().nullable(),
    received_at: IsoTime,
    attempts: z.array(InboundAttemptView),
  }),
);

const InboundPage = component('InboundPage', pageOf(InboundSummaryView));

const summaryView = (m: InboundSummary): z.infer<typeof InboundSummaryView> => ({
  id: m.id,
  connector: m.connector,
  kind: m.kind as z.infer<typeof InboundSummaryView>['kind'],
  external_id: m.externalId,
  thread_id: m.threadId,
  sender_id: m.senderId,
  status: m.status,
  chat_id: m.chatId,
  last_error: m.lastError,
  attempts: m.attempts,
  received_at: iso(m.receivedAt) as string,
  posted_at: iso(m.postedAt),
});

const attemptView = (a: InboundAttemptRow): z.infer<typeof InboundAttemptView> => ({
  id: a.id,
  job_id: a.jobId,
  attempt: a.attempt,
  started_at: iso(a.startedAt) as string,
  ended_at: iso(a.endedAt) as string,
  outcome: a.outcome,
  status: a.status,
  error: a.error,
  chat_id: a.chatId,
});

const detailView = (m: InboundRow, thread: ThreadRow | undefined, attempts: InboundAttemptRow[]): z.infer<typeof InboundDetailView> => ({
  id: m.id,
  connector: m.connector,
  kind: m.kind,
  external_id: m.externalId,
  thread_key: thread?.threadKey ?? null,
  thread_id: thread?.threadId ?? null,
  sender_id: m.senderId,
  sender_name: m.senderName,
  sender_type: m.senderType,
  body: m.body,
  full_text: m.fullText,
  variables: m.variables,
  skip_waiting_state: m.skipWaitingState,
  close_session: m.closeSession,
  status: m.status,
  chat_id: m.chatId,
  platform_message_id: m.platformMessageId,
  last_error: m.lastError,
  received_at: iso(m.receivedAt) as string,
  attempts: attempts.map(attemptView),
});

export const inboundRoutes = [
  route({
    method: 'GET',
    path: '/inbound',
    operationId: 'listInbound',
    tag: 'inbound',
    summary: 'List inbound messages, newest first',
    query: InboundQuery,
    response: InboundPage,
    async handle({ query }, { store }) {
      const { limit = DEFAULT_LIMIT, ...filter } = query;
      const rows = await listInbound(store.read.sql, { ...filter, limit });
      return toPage(rows, limit, async (before) => (await listInbound(store.read.sql, { ...filter, before, limit: 1 })).length > 0, summaryView);
    },
  }),
  route({
    method: 'GET',
    path: '/inbound/:id',
    operationId: 'getInbound',
    tag: 'inbound',
    summary: 'One inbound message with its platform POST attempts',
    params: IdParams,
    response: InboundDetailView,
    errors: [404],
    async handle({ params }, { store }) {
      const message = await store.read.inbound.byId(params.id);
      if (!message) throw new RecordNotFoundError(`no inbound message ${params.id}`);
      return detailView(message, await store.read.threads.byId(message.thread), await store.read.attempts.ofInbound(params.id));
    },
  }),
  route({
    method: 'POST',
    path: '/inbound/:id/retry',
    operationId: 'retryInbound',
    tag: 'inbound',
    summary: 'Put a dead inbound message back and queue its thread’s flush',
    description: '409 TG_NOT_REPLAYABLE unless the message is dead.',
    params: IdParams,
    status: 202,
    response: JobQueued,
    errors: [404, 409],
    async handle({ params }, { bridge }) {
      return { job_id: await bridge.replayer.retryInbound(params.id) };
    },
  }),
  route({
    method: 'POST',
    path: '/inbound/retry',
    operationId: 'retryInboundWhere',
    tag: 'inbound',
    summary: 'Retry every dead inbound message a filter matches',
    description: 'Each is put back in its thread’s list and the flush queued, oldest first; `dry_run` only counts. `status: dead` is required.',
    body: InboundRetryRequest,
    response: InboundRetryResult,
    async handle({ body }, { bridge, logger }) {
      const { status: _dead, dry_run: dryRun, ...filter } = body;
      const result = await bridge.replayer.retryInboundWhere(filter, { dryRun });
      logger.info({ event: 'inbound_bulk_retry', matched: result.matched.length, queued: result.retried.length, dry_run: dryRun }, 'dead inbound messages retried');
      return {
        dry_run: dryRun,
        matched: result.matched.length,
        queued: result.retried.length,
        ids: result.matched,
        retried: result.retried.map((r) => ({ id: r.id, job_id: r.job })),
        skipped: result.skipped,
      };
    },
  }),
];
