/**
 * What the ticket poller keeps and decides with: the per-ticket progress
 * record in `ctx.state`, the poller's health, the skip codes, whether a
 * failure is the ticket's own (counts towards giving up) or an outage.
 */
import { TicketSystemError } from './ticket-adapter.ts';

export interface TicketProgress {
  /** The last entry handled (`OPENED_SEQ`: none yet). */
  seq: number;
  /** The `updatedAt` of a settled read whose entries were all handled; null: read again when listed. */
  updatedAt: string | null;
  /** False for a ticket taken up after it existed whose opening message waits for its first new public note. */
  opened?: boolean;
  /** The opening was posted in this handling: apply the ticket's closed state at its end (unless an entry did). */
  closeCheck?: boolean;
}

export interface PollerStatus {
  connected: boolean;
  user: string | null;
  lastPollAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  consecutiveFailures: number;
  polls: number;
  /** Steps given up after repeated failures since start. */
  givenUp: number;
}

export const CURSOR_KEY = 'cursor';
export const OPENED_SEQ = -1;
export const MAX_TICKET_FAILURES = 3;
export const UNHANDLED = 'TG_TICKET_UNHANDLED';
export const PRIVATE_NOTE = 'TG_TICKET_PRIVATE_NOTE';
export const PRIVATE_ISSUE = 'TG_TICKET_PRIVATE_ISSUE';
export const MAX_BACKOFF_MS = 300_000;
export const ticketKey = (id: string) => `ticket:${id}`;

/** A failure of this ticket's own (asking again gives the same answer), not an outage of the system or the store. */
export function ticketsOwnFailure(err: unknown): boolean {
  if (err instanceof TicketSystemError) {
    if (err.malformed) return true;
    return err.status !== undefined && err.status >= 400 && ![401, 403, 404, 408, 429, 502, 503, 504].includes(err.status);
  }
  return (err as { code?: unknown } | null)?.code === 'TG_SUBMIT_INVALID';
}

export const messageOf = (err: unknown) => {
  const e = err as { message?: string; answer?: string };
  const message = e?.message ?? String(err);
  return e?.answer ? `${message}: ${e.answer}` : message;
};
