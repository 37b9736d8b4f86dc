/**
 * Polling mode: the connector's `poll`, run on one replica at a time.
 *
 *   getMe                       learn the bot (health), and whether the token is taken
 *   deleteWebhook               getUpdates answers 409 while a webhook is set; pending updates are kept
 *   loop: getUpdates(offset, timeout, allowed_updates)     long poll: answers at the first update
 *         each update, in order → inbound-update.ts (submit / skip / ignore)
 *         state `offset` = last handled update_id + 1      only after what it became is stored
 *
 * The offset lives in the poll's `state` (fenced by the poller's lease), and
 * Telegram forgets an update only once getUpdates is asked with a higher
 * offset: a crash before the offset is written re-reads the batch, whose
 * messages the bridge dedups on `<chat id>:<message_id>`. An update that
 * cannot be handled now stops the batch there (the offset points at it) and
 * the round is retried after a wait (retry-wait.ts: a 429 as long as
 * `retry_after` says); one that fails for a reason of its own is given up on
 * its third try (stuck-updates.ts). An empty answer that came sooner than
 * a second (a proxy that does not hold long polls) waits out the second, so
 * the loop never spins. The loop ends when its signal aborts — the long poll
 * in flight with it — and never throws.
 */
import { sleep, type ConnectorState, type Logger, type PollContext } from '../../src/connector/api.ts';
import type { BotApi } from './bot-api.ts';
import type { BotStatus } from './bot-status.ts';
import type { UpdateHandler } from './inbound-update.ts';
import { untilDone, waitAfterFailure } from './retry-wait.ts';
import type { StuckUpdates } from './stuck-updates.ts';
import { ALLOWED_UPDATES, BotUser, TrueResult, UpdateList } from './telegram-types.ts';

/** The key of the polling cursor in the connector's state: the offset of the next getUpdates. */
export const OFFSET_KEY = 'offset';
/** An empty answer sooner than this waits out the rest before the next getUpdates. */
export const MIN_EMPTY_ROUND_MS = 1_000;

export interface PollerDeps {
  api: BotApi;
  handler: UpdateHandler;
  stuck: StuckUpdates;
  status: BotStatus;
  logger: Logger;
  /** getUpdates' `timeout`: how long Telegram holds the request open waiting for an update. */
  timeoutSeconds: number;
}

/** Learns the bot with getMe; its @username goes to health. */
export async function identifyBot(api: BotApi, status: BotStatus, signal: AbortSignal): Promise<string> {
  const me = await api.call('getMe', {}, BotUser, signal);
  status.bot = `@${me.username}`;
  return status.bot;
}

export async function pollUpdates(deps: PollerDeps, poll: PollContext): Promise<void> {
  const { api, status, logger } = deps;
  const { signal, state } = poll;
  const prepared = await untilDone(
    'preparing to poll Telegram (getMe, deleteWebhook)',
    async () => {
      await identifyBot(api, status, signal);
      await api.call('deleteWebhook', { drop_pending_updates: false }, TrueResult, signal);
      return true;
    },
    deps,
    signal,
  );
  if (!prepared) return;
  logger.info({ bot: status.bot, api: api.host, timeout_s: deps.timeoutSeconds }, 'polling Telegram for updates');
  while (!signal.aborted) {
    try {
      const started = Date.now();
      const count = await pollOnce(deps, state, signal);
      status.succeeded();
      // A long poll answered empty at once (a proxy that does not hold requests) must not become a busy loop.
      const elapsed = Date.now() - started;
      if (count === 0 && elapsed < MIN_EMPTY_ROUND_MS) await sleep(MIN_EMPTY_ROUND_MS - elapsed, signal);
    } catch (err) {
      if (signal.aborted) break;
      await waitAfterFailure('polling Telegram (getUpdates)', err, deps, signal);
    }
  }
}

/** One getUpdates and its updates; the offset written once for the batch, or up to the update that failed. */
export async function pollOnce(deps: PollerDeps, state: ConnectorState, signal: AbortSignal): Promise<number> {
  const { api, handler, stuck, status } = deps;
  const offset = await state.get<number>(OFFSET_KEY);
  status.offset = offset ?? null;
  const updates = await api.call(
    'getUpdates',
    { offset, timeout: deps.timeoutSeconds, allowed_updates: ALLOWED_UPDATES },
    UpdateList,
    signal,
    { timeoutMs: deps.timeoutSeconds * 1000 + api.timeoutMs },
  );
  let next = offset;
  try {
    for (const update of updates) {
      const id = update.update_id;
      // Telegram never sends one below the offset asked; should it, it was handled before.
      if (offset !== undefined && id < offset) continue;
      try {
        await handler.handle(update, signal);
        stuck.succeeded(id);
      } catch (err) {
        if (signal.aborted || !(await stuck.failed(id, err))) throw err;
      }
      status.handled(id);
      next = id + 1;
    }
  } finally {
    if (next !== undefined && next !== offset) {
      await state.set(OFFSET_KEY, next);
      status.offset = next;
    }
  }
  return updates.length;
}
