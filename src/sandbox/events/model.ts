/**
 * The reporting events the sandbox lists (spec 02, "Reporting events" and
 * "Event listing"). Spec 02 does not show their columns; these are ours
 * (docs/decisions/sandbox-event-listing.md). Times are epoch milliseconds of the sandbox clock;
 * `collector_created_at` is the window field and `timestamp` is functionally
 * equal (seeding may set it a few milliseconds apart).
 */

export type Scalar = string | number | boolean | null;

/** Columns of a generic event row besides id and the two times. */
export const GENERIC_EVENT_COLUMNS = [
  'vendor', 'category', 'action', 'label', 'value', 'visitor_id', 'session_id', 'user_id', 'room_id', 'chat_id',
] as const;

/** Columns of a message event row besides id and the two times. */
export const MESSAGE_EVENT_COLUMNS = [
  'chat_id', 'message_id', 'room_id', 'visitor_id', 'user_id', 'sender_type', 'type',
] as const;

export type GenericEventColumn = (typeof GENERIC_EVENT_COLUMNS)[number];
export type MessageEventColumn = (typeof MESSAGE_EVENT_COLUMNS)[number];

export interface ListedEvent<C extends string> {
  id: string;
  /** Breaks ties of collectorCreatedAt: sorts as the events were recorded. */
  tieKey: string;
  organizationId: string;
  collectorCreatedAt: number;
  timestamp: number;
  columns: Record<C, Scalar>;
  /** Generic events: free-form properties of the event (shopping cart contents, custom data). */
  properties?: Record<string, unknown>;
}

export type GenericEventRecord = ListedEvent<GenericEventColumn>;

export interface MessageEventRecord extends ListedEvent<MessageEventColumn> {
  /** The case the message belongs to (case management), or null. */
  caseId: string | null;
}

/** A generic-event type mask of the catalog. */
export interface EventTypeMask {
  vendor: string | null;
  category: string | null;
  action: string | null;
}
