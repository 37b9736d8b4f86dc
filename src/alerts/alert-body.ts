/** An alert as it is sent: the gate's verdict with a title, an id stable across retries, and the gateway it came from. */
import { randomUUID } from 'node:crypto';
import type { AlertBody, AlertKind } from './alert-model.ts';
import type { GateAlert } from './alert-gate.ts';

export interface Origin {
  publicUrl: string;
  replica: string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? `1 ${one}` : `${n} ${many}`);

function title(kind: AlertKind, connector: string, state: 'firing' | 'resolved', count: number): string {
  const firing = state === 'firing';
  switch (kind) {
    case 'message_dead':
      return firing ? `${connector}: ${plural(count, 'message', 'messages')} dead-lettered (never reached the platform)` : `${connector}: messages reach the platform again`;
    case 'delivery_dead':
      return firing ? `${connector}: ${plural(count, 'delivery', 'deliveries')} dead-lettered (never delivered)` : `${connector}: deliveries get through again`;
    case 'connector_down':
      return firing ? `connector ${connector} is down` : `connector ${connector} is up again`;
    case 'connector_paused':
      return firing ? `connector ${connector}: platform posts paused` : `connector ${connector}: platform posts resumed`;
    case 'platform_auth':
      return firing ? "the platform refuses the gateway's token" : "the platform accepts the gateway's token again";
    case 'store_unavailable':
      return firing ? 'the store is unavailable' : 'the store answers again';
    case 'backlog_old':
      return firing ? 'jobs wait past their time: the backlog is old' : 'the job backlog caught up';
  }
}

export function alertBody(alert: GateAlert, origin: Origin, now: number): AlertBody {
  return {
    type: 'threadgate.alert',
    id: `alert_${alert.kind}_${now.toString(36)}_${randomUUID().slice(0, 8)}`,
    kind: alert.kind,
    state: alert.state,
    connector: alert.connector === '' ? null : alert.connector,
    title: title(alert.kind, alert.connector, alert.state, alert.count),
    reason: alert.reason,
    count: alert.count,
    latest: alert.latest ? { id: alert.latest.id, code: alert.latest.code, reason: alert.latest.reason, summary: alert.latest.summary, at: alert.latest.at, link: alert.latest.link } : null,
    since: new Date(alert.since).toISOString(),
    gateway: { public_url: origin.publicUrl, replica: origin.replica },
    sent_at: new Date(now).toISOString(),
  };
}

/** The alert `threadgate alerts test` sends. */
export function testBody(origin: Origin, now: number): AlertBody {
  return {
    type: 'threadgate.alert',
    id: `alert_test_${now.toString(36)}_${randomUUID().slice(0, 8)}`,
    kind: 'connector_down',
    state: 'test',
    connector: null,
    title: 'test alert: the alert destinations work',
    reason: 'sent by `threadgate alerts test`; nothing is wrong',
    count: 0,
    latest: null,
    since: new Date(now).toISOString(),
    gateway: { public_url: origin.publicUrl, replica: origin.replica },
    sent_at: new Date(now).toISOString(),
  };
}
