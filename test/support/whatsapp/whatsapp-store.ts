/**
 * What the counterpart holds, in memory: the business number's customers and
 * when each last wrote (the 24-hour customer service window runs from a
 * customer's last message: https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-messages#customer-service-windows),
 * every message the business sent (for tests to inspect), media (uploaded by
 * the business or sent by customers), the approved templates, and the
 * throughput limits (https://developers.facebook.com/docs/whatsapp/cloud-api/overview#throughput
 * and the pair rate limit of error 131056), which a test may tighten.
 */
import { createHash, randomBytes } from 'node:crypto';
import { pairLimited, throughputLimited } from './graph-errors.ts';

export const WINDOW_MS = 24 * 60 * 60 * 1000;

export interface SentMessage {
  wamid: string;
  to: string;
  type: string;
  /** A text message's body. */
  body?: string;
  /** An image's or document's media id, and a document's file name. */
  mediaId?: string;
  filename?: string;
  template?: { name: string; language: string };
  at: number;
}

export interface StoredMedia {
  id: string;
  content: Buffer;
  mimeType: string;
  filename?: string;
  sha256: string;
  /** Who made it: an upload of the business, or a customer's message. */
  from: 'business' | 'customer';
  /** The download URL's hash (it is refused without it). */
  hash: string;
}

export interface Limit {
  max: number;
  windowMs: number;
}

export interface Limits {
  /** Messages the number sends (80 a second by default). */
  throughput: Limit;
  /** Messages to one customer (WhatsApp allows bursts, about one every 6 s on average). */
  pair: Limit;
}

export const DOCUMENTED_LIMITS: Limits = { throughput: { max: 80, windowMs: 1_000 }, pair: { max: 45, windowMs: 6_000 } };

export class WhatsAppStore {
  /** wa_id → when the customer last wrote (ms). */
  readonly lastInbound = new Map<string, number>();
  readonly sent: SentMessage[] = [];
  readonly media = new Map<string, StoredMedia>();
  /** `name language` of each approved template. */
  readonly templates = new Set<string>();
  limits: Limits;
  #sends: number[] = [];
  readonly #pairs = new Map<string, number[]>();
  #nextMedia = 1_000_000_000_000_000;

  constructor(limits: Partial<Limits> = {}) {
    this.limits = { ...DOCUMENTED_LIMITS, ...limits };
  }

  wamid(): string {
    return `wamid.HBgM${randomBytes(18).toString('base64').replace(/[+/=]/g, 'A')}`;
  }

  /** Whether the customer's 24-hour window is open now. */
  windowOpen(waId: string, now = Date.now()): boolean {
    const last = this.lastInbound.get(waId);
    return last !== undefined && now - last < WINDOW_MS;
  }

  addMedia(content: Buffer, mimeType: string, from: StoredMedia['from'], filename?: string): StoredMedia {
    const media: StoredMedia = {
      id: String((this.#nextMedia += 1)),
      content,
      mimeType,
      ...(filename === undefined ? {} : { filename }),
      sha256: createHash('sha256').update(content).digest('base64'),
      from,
      hash: randomBytes(16).toString('hex'),
    };
    this.media.set(media.id, media);
    return media;
  }

  /** Counts a message to `to` against the limits; throws 130429 or 131056 once one is spent (refused ones do not count). */
  takeSend(to: string, now = Date.now()): void {
    const { throughput, pair } = this.limits;
    this.#sends = this.#sends.filter((at) => at > now - throughput.windowMs);
    if (this.#sends.length >= throughput.max) throw throughputLimited();
    const mine = (this.#pairs.get(to) ?? []).filter((at) => at > now - pair.windowMs);
    if (mine.length >= pair.max) throw pairLimited();
    this.#sends.push(now);
    this.#pairs.set(to, [...mine, now]);
  }
}
