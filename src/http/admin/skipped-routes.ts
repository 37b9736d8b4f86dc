/**
 * Messages connectors read and deliberately did not post — auto-replies,
 * bulk mail, the gateway's own mail, loops, private ticket notes, messages
 * given up after repeated failures — with the stable code and the reason,
 * newest first, filtered like the rest of the log.
 */
import { z } from 'zod';
import type { SkippedRow } from '../../store/skipped-repo.ts';
import { DEFAULT_LIMIT, iso, IsoTime, pageOf, pageParams, textFilter, timeParam, toPage } from './fields.ts';
import { component, route } from './route-table.ts';

export const SkippedQuery = z.strictObject({
  connector: textFilter('The connector name.'),
  code: textFilter('The skip code, e.g. TG_EMAIL_AUTO_REPLY.'),
  since: timeParam('Recorded at or after: a duration ago (2h) or an ISO time.').optional(),
  until: timeParam('Recorded before: a duration ago or an ISO time.').optional(),
  ...pageParams,
});

const SkippedView = component(
  'SkippedMessage',
  z.object({
    id: z.number().int(),
    connector: z.string(),
    external_id: z.string().meta({ description: 'The connector’s id of the message (a Message-ID, a journal).' }),
    code: z.string().meta({ description: 'A stable TG_* code of why it was not posted.' }),
    reason: z.string(),
    sender_id: z.string().nullable(),
    summary: z.string().nullable().meta({ description: 'A short description (a subject line); never a body.' }),
    received_at: IsoTime,
  }),
);

const view = (r: SkippedRow): z.infer<typeof SkippedView> => ({
  id: r.id,
  connector: r.connector,
  external_id: r.externalId,
  code: r.code,
  reason: r.reason,
  sender_id: r.senderId,
  summary: r.summary,
  received_at: iso(r.receivedAt) as string,
});

export const skippedRoutes = [
  route({
    method: 'GET',
    path: '/skipped',
    operationId: 'listSkipped',
    tag: 'inbound',
    summary: 'List messages connectors did not post (auto-replies, bulk, loops, private notes…), newest first',
    query: SkippedQuery,
    response: component('SkippedPage', pageOf(SkippedView)),
    async handle({ query }, { store }) {
      const { limit = DEFAULT_LIMIT, ...filter } = query;
      const rows = await store.read.skipped.listWhere({ ...filter, limit });
      return toPage(rows, limit, async (before) => (await store.read.skipped.listWhere({ ...filter, before, limit: 1 })).length > 0, view);
    },
  }),
];
