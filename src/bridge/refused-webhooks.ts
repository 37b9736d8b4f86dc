/**
 * What is kept of a refused webhook. Anyone can send one, so the store must
 * not grow with them:
 *
 *   unknown connector name  counted, never stored (the name is the caller's choice)
 *   over `per_minute`       counted, not stored (a token bucket per connector)
 *   over `max_total_bytes`  counted, not stored; a warning at most once a minute
 *   otherwise               stored as a `rejected` delivery: the first
 *                           `keep_body_bytes` of the body (the cut recorded),
 *                           headers up to 2 KiB, the error up to 1 KiB
 *
 * The bytes held are summed from the store at most once a minute and counted
 * here in between, so records pruned by retention free their room within a
 * minute.
 */
import type { Logger } from 'pino';
import { WebhookSignatureError } from '../platform/errors.ts';
import type { Store } from '../store/database.ts';
import { storedBytes, type NewDelivery } from '../store/deliveries-repo.ts';
import { RejectionBudget } from './rejection-budget.ts';

export interface RefusalLimits {
  keepBodyBytes: number;
  maxTotalBytes: number;
  perMinute: number;
}

export const DEFAULT_REFUSAL_LIMITS: RefusalLimits = { keepBodyBytes: 4 * 1024, maxTotalBytes: 64 * 1024 ** 2, perMinute: 60 };

/** The limits of the `store.refused` settings. */
export function refusalLimits(settings: { keep_body_bytes: number; max_total_bytes: number; per_minute: number }): RefusalLimits {
  return { keepBodyBytes: settings.keep_body_bytes, maxTotalBytes: settings.max_total_bytes, perMinute: settings.per_minute };
}

/** Why a refusal was not stored (the `reason` label of the metric). */
export type NotStoredReason = 'unknown_connector' | 'rate' | 'budget';

/** Headers of a refused request are kept up to this much JSON; each value up to HEADER_VALUE_CHARS. */
const HEADERS_BYTES = 2 * 1024;
const HEADER_VALUE_CHARS = 512;
const ERROR_CHARS = 1024;
/** The key that records headers left out; parentheses cannot occur in a header name. */
export const HEADERS_CUT_KEY = '(cut)';
const RESUM_EVERY_MS = 60_000;
const WARN_EVERY_MS = 60_000;

export interface RefusedWebhooksDeps {
  store: Store;
  logger: Logger;
  limits: RefusalLimits;
  onNotStored?: (connector: string, reason: NotStoredReason) => void;
  now: () => number;
}

export class RefusedWebhooks {
  readonly #d: RefusedWebhooksDeps;
  readonly #rate: RejectionBudget;
  #held: { bytes: number; at: number } | undefined;
  #overBudget = { since: 0, count: 0, warnedAt: -Infinity };

  constructor(deps: RefusedWebhooksDeps) {
    this.#d = deps;
    this.#rate = new RejectionBudget(deps.limits.perMinute, deps.now);
  }

  /** Stores the refusal if its connector is known and the rate and byte budgets allow; says why not otherwise. */
  async record(connector: string, known: boolean, rawBody: Buffer, headers: Record<string, unknown>, code: string, err: unknown): Promise<NotStoredReason | undefined> {
    const reason = await this.#store(connector, known, rawBody, headers, code, err);
    if (reason !== undefined) this.#d.onNotStored?.(known ? connector : '(unknown)', reason);
    return reason;
  }

  async #store(connector: string, known: boolean, rawBody: Buffer, headers: Record<string, unknown>, code: string, err: unknown): Promise<NotStoredReason | undefined> {
    if (!known) return 'unknown_connector';
    if (!this.#rate.take(connector)) return 'rate';
    const { keepBodyBytes, maxTotalBytes } = this.#d.limits;
    const message = err instanceof Error ? err.message : String(err);
    const record: NewDelivery = {
      connector,
      eventType: null,
      dedupKey: null,
      eventAt: null,
      duplicateOf: null,
      threadId: null,
      chatId: null,
      body: rawBody.subarray(0, keepBodyBytes).toString('utf8'),
      bodyTruncated: rawBody.length > keepBodyBytes,
      headers: keptHeaders(headers),
      verification: err instanceof WebhookSignatureError ? code : 'not-checked',
      status: 'rejected',
      error: `${code}: ${message}`.slice(0, ERROR_CHARS),
    };
    const size = storedBytes(record);
    const held = await this.#heldBytes();
    if (held + size > maxTotalBytes) {
      this.#warnOverBudget();
      return 'budget';
    }
    await this.#d.store.write((tx) => tx.deliveries.insert(record, this.#d.now()));
    if (this.#held) this.#held.bytes += size;
    return undefined;
  }

  async #heldBytes(): Promise<number> {
    const now = this.#d.now();
    if (this.#held === undefined || now - this.#held.at >= RESUM_EVERY_MS) this.#held = { bytes: await this.#d.store.read.deliveries.refusedBytes(), at: now };
    return this.#held.bytes;
  }

  #warnOverBudget(): void {
    const now = this.#d.now();
    const o = this.#overBudget;
    if (o.count === 0) o.since = now;
    o.count += 1;
    if (now - o.warnedAt < WARN_EVERY_MS) return;
    this.#d.logger.warn(
      { not_stored: o.count, since: new Date(o.since).toISOString(), held_bytes: this.#held?.bytes, max_total_bytes: this.#d.limits.maxTotalBytes },
      'refused webhooks are no longer stored: store.refused.max_total_bytes reached (they are still answered, logged and counted)',
    );
    o.warnedAt = now;
    o.count = 0;
  }
}

/** Request headers never stored with a delivery, accepted or refused: they carry the caller's credentials. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** The headers of a request that may be stored with its delivery record. */
export function storableHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) && value !== undefined) kept[name] = value;
  return kept;
}

/** The request headers worth keeping of a refusal, within HEADERS_BYTES; what is left out is counted under `(cut)`. */
function keptHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let bytes = 2;
  let left = 0;
  for (const [name, value] of Object.entries(storableHeaders(headers))) {
    const text = (Array.isArray(value) ? value.join(', ') : String(value)).slice(0, HEADER_VALUE_CHARS);
    const entry = Buffer.byteLength(JSON.stringify({ [name]: text })) - 1;
    if (bytes + entry > HEADERS_BYTES) {
      left += 1;
      continue;
    }
    kept[name] = text;
    bytes += entry;
  }
  if (left > 0) kept[HEADERS_CUT_KEY] = `${left} more headers not kept`;
  return kept;
}
