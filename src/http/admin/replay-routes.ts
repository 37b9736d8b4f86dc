/**
 * Bulk replay over HTTP: `POST /replays` with a delivery filter starts a
 * background run (202 with its id); `GET /replays/:id` follows it until
 * `done`. As with the CLI's `replay --status …`, a status is required, so
 * an empty filter never replays the whole log by accident.
 */
import { z } from 'zod';
import { RecordNotFoundError } from '../../bridge/errors.ts';
import { DELIVERY_STATUSES } from '../../store/statuses.ts';
import { deliveryFilterFields } from './delivery-routes.ts';
import { IsoTime, statusList } from './fields.ts';
import { component, route } from './route-table.ts';

export const ReplayRequest = component(
  'ReplayRequest',
  z.strictObject({
    ...deliveryFilterFields,
    status: statusList(DELIVERY_STATUSES).refine((s) => s.length > 0, { error: 'name at least one status' }),
    dry_run: z.boolean().default(false).meta({ description: 'Only count the matches; replay nothing.' }),
  }),
);

const ReplayStarted = component('ReplayStarted', z.object({ id: z.string().meta({ description: 'The run id, for GET /admin/api/replays/{id}.' }) }));

const ReplayRunView = component(
  'ReplayRun',
  z.object({
    id: z.string(),
    status: z.enum(['running', 'done']),
    dry_run: z.boolean(),
    matched: z.number().int().meta({ description: 'Deliveries the filter matched when the run started.' }),
    replayed: z.number().int(),
    skipped: z.number().int().meta({ description: 'Matched but not replayable (rejected, body cut); see skipped_records.' }),
    done: z.number().int().meta({ description: 'Matched deliveries handled so far (replayed + skipped).' }),
    skipped_records: z.array(z.object({ id: z.number().int(), reason: z.string() })),
    error: z.string().nullable().meta({ description: 'Why the run stopped early, else null.' }),
    started_at: IsoTime,
    finished_at: IsoTime.nullable(),
  }),
);

const RunParams = z.strictObject({ id: z.uuid({ error: 'must be a replay run id (a UUID)' }).meta({ description: 'The run id.' }) });

export const replayRoutes = [
  route({
    method: 'POST',
    path: '/replays',
    operationId: 'startReplay',
    tag: 'replays',
    summary: 'Replay every delivery a filter matches, in the background',
    body: ReplayRequest,
    status: 202,
    response: ReplayStarted,
    handle({ body }, { runs }) {
      const { dry_run: dryRun, ...filter } = body;
      return { id: runs.start(filter, dryRun).id };
    },
  }),
  route({
    method: 'GET',
    path: '/replays/:id',
    operationId: 'getReplay',
    tag: 'replays',
    summary: 'The progress and counts of a bulk replay',
    description: 'Runs are kept in memory (the latest 100): a restart forgets them, not the replays they queued.',
    params: RunParams,
    response: ReplayRunView,
    errors: [404],
    handle({ params }, { runs }) {
      const run = runs.get(params.id);
      if (!run) throw new RecordNotFoundError(`no replay run ${params.id}`);
      return run;
    },
  }),
];
