/**
 * Flood control, as Telegram describes it for bots
 * (https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this,
 * https://core.telegram.org/bots/api#responseparameters):
 *
 * - no more than about 30 messages a second in all;
 * - no more than 20 messages a minute in one group;
 * - past a limit the send is refused with 429 "Too Many Requests: retry
 *   after N" and `parameters.retry_after` = N seconds, in the body (there is
 *   no Retry-After header).
 *
 * The FAQ asks bots to keep to about one message a second in a private chat
 * but names no hard limit there; the counterpart enforces none unless a test
 * sets `private`. Both windows are sliding windows of the machine's clock. A
 * test may also order floods outright: `order('sendMessage', 2)` answers the
 * next sendMessage with "retry after 2".
 */
import { floodWait } from './bot-errors.ts';

export interface Limit {
  max: number;
  windowMs: number;
}

export interface FloodLimits {
  /** Every message the bot sends. */
  global: Limit;
  /** Messages to one group or supergroup. */
  group: Limit;
  /** Messages to one private chat (none by default). */
  private?: Limit | undefined;
}

export const DOCUMENTED_LIMITS: FloodLimits = { global: { max: 30, windowMs: 1_000 }, group: { max: 20, windowMs: 60_000 } };

/** A flood a test ordered: the next `times` calls of `method` are refused, asking to wait `retryAfter` seconds. */
export interface OrderedFlood {
  method: string;
  retryAfter: number;
  times: number;
}

export class FloodControl {
  limits: FloodLimits;
  readonly ordered: OrderedFlood[] = [];
  readonly #sent: number[] = [];
  readonly #perChat = new Map<number, number[]>();

  constructor(limits: Partial<FloodLimits> = {}) {
    this.limits = { ...DOCUMENTED_LIMITS, ...limits };
  }

  order(method: string, retryAfter: number, times = 1): void {
    this.ordered.push({ method: method.toLowerCase(), retryAfter, times });
  }

  /** Throws the 429 a test ordered for `method`, if one is left. */
  checkOrdered(method: string): void {
    const flood = this.ordered.find((f) => f.times > 0 && f.method === method.toLowerCase());
    if (flood === undefined) return;
    flood.times -= 1;
    throw floodWait(flood.retryAfter);
  }

  /** Counts one message to `chatId` (a group when `group`); throws the 429 when a limit is reached. */
  take(chatId: number, group: boolean): void {
    const now = Date.now();
    const chatLimit = group ? this.limits.group : this.limits.private;
    const chatTimes = prune(this.#perChat.get(chatId) ?? [], now, chatLimit?.windowMs ?? 0);
    this.#perChat.set(chatId, chatTimes);
    prune(this.#sent, now, this.limits.global.windowMs);
    const waits = [wait(this.#sent, this.limits.global, now), chatLimit ? wait(chatTimes, chatLimit, now) : 0];
    const seconds = Math.max(...waits);
    if (seconds > 0) throw floodWait(seconds);
    this.#sent.push(now);
    chatTimes.push(now);
  }
}

function prune(times: number[], now: number, windowMs: number): number[] {
  while (times.length > 0 && times[0]! <= now - windowMs) times.shift();
  return times;
}

/** Whole seconds until the window has room again; 0 when it has now. */
function wait(times: readonly number[], limit: Limit, now: number): number {
  if (times.length < limit.max) return 0;
  return Math.max(1, Math.ceil((times[times.length - limit.max]! + limit.windowMs - now) / 1000));
}
