/**
 * What a running gateway receives and sends, as it happens, for whoever
 * listens (`threadgate listen`, the admin page's live view): platform
 * webhooks at the receiver, connector intake, deliveries, platform posts.
 *
 *   publisher ──publish──▶ LiveFeed ──▶ each subscriber's bounded queue ──▶ its reader (an SSE response)
 *
 * Publishing never waits and costs nothing without a subscriber (callers test
 * `listening` before building an event). Each subscriber has its own queue of
 * at most `max` events: a reader that falls behind loses the newest events
 * and is told how many with a `gap` event before the next one it gets, so a
 * slow reader never slows the gateway or another reader.
 */

export type LiveKind = 'webhook' | 'intake' | 'delivery' | 'platform';
export const LIVE_KINDS: readonly LiveKind[] = ['webhook', 'intake', 'delivery', 'platform'];

export interface LiveEvent {
  /** Increases by one per event published in this process. */
  seq: number;
  /** ISO 8601, when it happened. */
  at: string;
  kind: LiveKind | 'gap';
  connector: string;
  [field: string]: unknown;
}

/** A platform webhook's raw body and stored headers, for readers that forward it (`listen --forward-to`). */
export interface LiveRaw {
  body: string;
  headers: Record<string, unknown>;
}

export interface LiveFilter {
  connectors?: readonly string[] | undefined;
  kinds?: readonly LiveKind[] | undefined;
  /** Whether webhook events carry their raw body and headers. */
  raw?: boolean;
  /** Events held for a reader that is behind (default 1 000). */
  max?: number;
}

export interface LiveSubscription {
  /** The next events, waiting until there is one (or the subscription ends: then `[]`). */
  next(): Promise<LiveEvent[]>;
  /** Events lost so far because the reader was behind. */
  readonly lost: number;
  /** Settles when the subscription ends (`close`, or the feed closing). */
  readonly ended: Promise<void>;
  close(): void;
}

const DEFAULT_MAX = 1_000;

class Subscriber implements LiveSubscription {
  readonly filter: LiveFilter;
  readonly #queue: LiveEvent[] = [];
  readonly #max: number;
  #lostSinceRead = 0;
  lost = 0;
  #wake: (() => void) | undefined;
  closed = false;
  readonly #onClose: () => void;
  readonly ended: Promise<void>;
  #end!: () => void;

  constructor(filter: LiveFilter, onClose: () => void) {
    this.filter = filter;
    this.#max = filter.max ?? DEFAULT_MAX;
    this.#onClose = onClose;
    this.ended = new Promise((resolve) => (this.#end = resolve));
  }

  offer(event: LiveEvent): void {
    if (this.#queue.length >= this.#max) {
      this.#lostSinceRead += 1;
      this.lost += 1;
    } else {
      this.#queue.push(event);
    }
    this.#wake?.();
  }

  async next(): Promise<LiveEvent[]> {
    while (this.#queue.length === 0 && this.#lostSinceRead === 0 && !this.closed) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
    const events = this.#queue.splice(0);
    if (this.#lostSinceRead > 0) {
      // Where the loss happened: after what was queued before it.
      events.push({ seq: 0, at: new Date().toISOString(), kind: 'gap', connector: '', lost: this.#lostSinceRead });
      this.#lostSinceRead = 0;
    }
    return events;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#wake?.();
    this.#end();
    this.#onClose();
  }
}

export class LiveFeed {
  readonly #subscribers = new Set<Subscriber>();
  #seq = 0;

  /** Whether anyone listens: build no event when nobody does. */
  get listening(): boolean {
    return this.#subscribers.size > 0;
  }

  get subscribers(): number {
    return this.#subscribers.size;
  }

  publish(kind: LiveKind, connector: string, fields: Record<string, unknown>, raw?: LiveRaw): void {
    if (this.#subscribers.size === 0) return;
    const event: LiveEvent = { ...fields, seq: ++this.#seq, at: new Date().toISOString(), kind, connector };
    const withRaw = raw ? { ...event, raw } : event;
    for (const s of this.#subscribers) {
      const f = s.filter;
      if (f.kinds && !f.kinds.includes(kind)) continue;
      if (f.connectors && !f.connectors.includes(connector)) continue;
      s.offer(f.raw && raw ? withRaw : event);
    }
  }

  subscribe(filter: LiveFilter = {}): LiveSubscription {
    const subscriber: Subscriber = new Subscriber(filter, () => this.#subscribers.delete(subscriber));
    this.#subscribers.add(subscriber);
    return subscriber;
  }

  /** Ends every subscription (the gateway stops). */
  close(): void {
    for (const s of [...this.#subscribers]) s.close();
  }
}
