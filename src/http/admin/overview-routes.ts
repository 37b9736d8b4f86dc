/**
 * The operator's first look: readiness with the platform's condition, each
 * connector's health (its own report, failing deliveries, registration,
 * paused platform posts),
 * and how many deliveries, inbound messages and jobs are in each status.
 */
import { z } from 'zod';
import { countDeliveriesByStatus, countInboundByStatus } from '../../store/status-counts.ts';
import { DELIVERY_STATUSES, INBOUND_STATUSES, JOB_STATUSES } from '../../store/statuses.ts';
import { component, route } from './route-table.ts';

const PauseView = component(
  'PlatformPostsPause',
  z
    .object({
      since: z.iso.datetime(),
      status: z.number().int().meta({ description: 'The status the platform refused the token with (401 or 403).' }),
      reason: z.string(),
      checks: z.number().int().meta({ description: 'Re-checks that failed so far.' }),
      next_check_at: z.iso.datetime(),
    })
    .meta({ description: 'Platform posts wait (messages stay pending) until the platform accepts the token again.' }),
);

const DeliveryFailures = component(
  'DeliveryFailures',
  z
    .object({
      since: z.iso.datetime().meta({ description: 'When the first failed attempt of the run ended.' }),
      attempts: z.number().int().meta({ description: 'Delivery attempts that failed in a row.' }),
      last_error: z.string(),
      last_error_at: z.iso.datetime(),
      down: z.boolean().meta({ description: 'The run is long enough for the connector to count as down (health.delivery_failures, health.delivery_failing_for).' }),
    })
    .meta({ description: "The connector's current run of failed deliveries; null while its last delivery got through." }),
);

const connectorFields = {
  ok: z.boolean().meta({ description: "The connector's own report is ok and its deliveries are not failing (deliveries.down)." }),
  details: z.record(z.string(), z.unknown()).meta({ description: 'What the connector reports (connected, last error…); no secrets.' }),
  deliveries: DeliveryFailures.nullable(),
  registered: z.boolean().meta({ description: 'Its channel configuration is registered (or known from the store).' }),
  paused: PauseView.nullable(),
  up: z.boolean().meta({ description: 'ok (deliveries not failing included), registered and not paused.' }),
};

const ConnectorHealthView = component('ConnectorHealth', z.object({ name: z.string(), ...connectorFields }));

const ConnectorList = component('ConnectorList', z.object({ results: z.array(ConnectorHealthView) }));

const HealthView = component(
  'GatewayHealth',
  z.object({
    ready: z.boolean().meta({ description: 'What /readyz answers 200 for.' }),
    healthy: z.boolean().meta({ description: 'What /readyz?strict=1 answers 200 for.' }),
    problems: z.array(z.string()),
    checks: z.object({ store: z.string(), migrations: z.string(), registrations: z.string() }),
    platform: z
      .object({
        up: z.boolean().nullable(),
        auth: z.enum(['ok', 'refused', 'unknown']),
        checked_at: z.iso.datetime().nullable(),
        last: z.string().nullable(),
      })
      .nullable(),
    connectors: z.record(z.string(), z.object(connectorFields)),
  }),
);

const countsOf = (statuses: readonly string[]) => z.object(Object.fromEntries(statuses.map((s) => [s, z.number().int()])));

const Counts = component(
  'Counts',
  z.object({
    deliveries: countsOf(DELIVERY_STATUSES),
    inbound: countsOf(INBOUND_STATUSES),
    jobs: countsOf(JOB_STATUSES),
  }),
);

export const overviewRoutes = [
  route({
    method: 'GET',
    path: '/connectors',
    operationId: 'listConnectors',
    tag: 'overview',
    summary: 'Each configured connector with its health: own report, failing deliveries, registration, paused platform posts',
    response: ConnectorList,
    async handle(_input, { health }) {
      const { connectors } = await health.report();
      return { results: Object.entries(connectors).map(([name, c]) => ({ name, ...c })) };
    },
  }),
  route({
    method: 'GET',
    path: '/health',
    operationId: 'getHealth',
    tag: 'overview',
    summary: 'Readiness, the platform and every connector: the report /readyz answers with',
    response: HealthView,
    handle: (_input, { health }) => health.report(),
  }),
  route({
    method: 'GET',
    path: '/counts',
    operationId: 'getCounts',
    tag: 'overview',
    summary: 'Deliveries, inbound messages and jobs counted by status',
    response: Counts,
    async handle(_input, { store, bridge }) {
      return { deliveries: await countDeliveriesByStatus(store.read.sql), inbound: await countInboundByStatus(store.read.sql), jobs: await bridge.queue.countByStatus() };
    },
  }),
];
