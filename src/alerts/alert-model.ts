/**
 * What an alert says. One alert is one kind of trouble at one place (a
 * connector, or the gateway as a whole), firing or resolved:
 *
 *   message_dead        an inbound message (or a session close) was dead-lettered: it never reached the platform
 *   delivery_dead       an agent event was dead-lettered: the connector never delivered it
 *   connector_down      a connector reported itself unhealthy, or its deliveries kept failing, for `after`
 *   connector_paused    a connector's platform posts waited for the token to be accepted, for `after`
 *   platform_auth       the platform refused the gateway's token
 *   store_unavailable   the store did not answer (told by each replica that saw it)
 *   backlog_old         the oldest queued job waited longer than `backlog_age`
 *
 * The body a webhook receives (and a mail shows) is `AlertBody`.
 */
export const ALERT_KINDS = ['message_dead', 'delivery_dead', 'connector_down', 'connector_paused', 'platform_auth', 'store_unavailable', 'backlog_old'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** Kinds whose occurrences are events (each dead letter counts); the others are conditions that hold for a while. */
export const EVENT_KINDS: ReadonlySet<AlertKind> = new Set(['message_dead', 'delivery_dead']);

/** One dead letter, as an alert names it. */
export interface DeadLetter {
  kind: 'message_dead' | 'delivery_dead';
  connector: string;
  /** The delivery's id, or the first inbound message's. */
  id: number;
  /** The error's stable code (`TG_…`), when it had one. */
  code: string | null;
  reason: string;
  /** What it was, in a few words: never a message's body. */
  summary: string;
  /** Unix ms it was dead-lettered. */
  at: number;
  /** The admin page's link to it (with `server.public_url`). */
  link: string;
}

/** A condition that holds now, as the watch saw it. */
export interface Condition {
  kind: Exclude<AlertKind, 'message_dead' | 'delivery_dead'>;
  /** The connector it is about; '' for the gateway as a whole. */
  connector: string;
  /** Why, in one line (no secrets). */
  reason: string;
}

export interface AlertBody {
  type: 'threadgate.alert';
  /** Stable across retries of this alert: the receiver's dedup key. */
  id: string;
  kind: AlertKind;
  state: 'firing' | 'resolved' | 'test';
  connector: string | null;
  /** One line for a pager or a mail subject. */
  title: string;
  reason: string;
  /** Occurrences since the previous alert of this kind and connector (dead letters, or times the condition began). */
  count: number;
  /** For dead letters: the latest one. */
  latest: Omit<DeadLetter, 'kind' | 'connector'> | null;
  /** When the trouble began (firing) or ended (resolved), ISO 8601. */
  since: string;
  gateway: { public_url: string; replica: string };
  sent_at: string;
}
