/** The status vocabularies of the store, apart from the table definitions so commands load them cheaply. */

export const JOB_STATUSES = ['queued', 'running', 'done', 'dead'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const INBOUND_STATUSES = ['pending', 'posted', 'dead'] as const;
export type InboundStatus = (typeof INBOUND_STATUSES)[number];

export const INBOUND_KINDS = ['message', 'close'] as const;
export type InboundKind = (typeof INBOUND_KINDS)[number];

export const DELIVERY_STATUSES = ['accepted', 'duplicate', 'rejected', 'delivered', 'skipped', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const ATTEMPT_OUTCOMES = ['running', 'delivered', 'skipped', 'failed', 'dead', 'aborted'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export const INBOUND_OUTCOMES = ['posted', 'failed', 'dead'] as const;
export type InboundOutcome = (typeof INBOUND_OUTCOMES)[number];

/** What the other side reported of a sent message, each further than the ones before it (`failed` final). */
export const RECEIPT_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];
