/**
 * The operator's first look: each connector's own health report, and how
 * many deliveries, inbound messages and jobs are in each status.
 */
import { z } from 'zod';
import { countDeliveriesByStatus, countInboundByStatus } from '../../store/status-counts.ts';
import { DELIVERY_STATUSES, INBOUND_STATUSES, JOB_STATUSES } from '../../store/statuses.ts';
import { component, route } from './route-table.ts';

const ConnectorHealthView = component(
  'ConnectorHealth',
  z.object({
    name: z.string(),
    ok: z.boolean(),
    details: z.record(z.string(), z.unknown()).meta({ description: 'What the connector reports (connected, last error…); no secrets.' }),
  }),
);

const ConnectorList = component('ConnectorList', z.object({ results: z.array(ConnectorHealthView) }));

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
    summary: 'Each configured connector with its health report',
    response: ConnectorList,
    async handle(_input, { connectorHealth }) {
      const health = await connectorHealth();
      return { results: Object.entries(health).map(([name, h]) => ({ name, ok: h.ok, details: h.details ?? {} })) };
    },
  }),
  route({
    method: 'GET',
    path: '/counts',
    operationId: 'getCounts',
    tag: 'overview',
    summary: 'Deliveries, inbound messages and jobs counted by status',
    response: Counts,
    handle(_input, { store, bridge }) {
      return { deliveries: countDeliveriesByStatus(store), inbound: countInboundByStatus(store), jobs: bridge.queue.countByStatus() };
    },
  }),
];
