/**
 * One bad update must not stop the chat. Updates are handled in order and
 * the offset never passes one that was not handled, so an update that fails
 * every time would hold back every later one. The connector tells two kinds
 * of failure apart:
 *
 * - of the update's own (the bridge refuses the message as invalid,
 *   `TG_SUBMIT_INVALID`; Telegram refuses a request about it for good, a
 *   4xx; the update is no Update): on the third failure in a row of the same
 *   update it is given up — recorded with `ctx.skip` as
 *   `TG_TELEGRAM_UPDATE_UNHANDLED` with the error, logged at error level —
 *   and passed;
 * - an outage (no answer, a 5xx, a 429, a refused token, the store down):
 *   tried again for as long as it lasts, never given up.
 */
import { PermanentDeliveryError, type ConnectorContext, type Logger } from '../../src/connector/api.ts';

export const GIVE_UP_AFTER = 3;
export const UNHANDLED_CODE = 'TG_TELEGRAM_UPDATE_UNHANDLED';
const REASON_CHARS = 500;

/** Whether `err` is a failure of the update's own, which trying again will not mend. */
export function isOwnFailure(err: unknown): boolean {
  if (err instanceof TypeError) return true;
  if ((err as { code?: unknown } | null)?.code === 'TG_SUBMIT_INVALID') return true;
  // A refusal for good of something about this update (its file); a blocked bot or a missing chat never comes here.
  return err instanceof PermanentDeliveryError;
}

export class StuckUpdates {
  readonly #skip: ConnectorContext['skip'];
  readonly #logger: Logger;
  #updateId: number | undefined;
  #failures = 0;

  constructor(skip: ConnectorContext['skip'], logger: Logger) {
    this.#skip = skip;
    this.#logger = logger;
  }

  /**
   * Counts a failure of update `updateId`; on the third of its own in a row
   * records it as given up and answers true: the caller passes it. Answers
   * false when it is to be tried again. A failure of the skip itself (the
   * store) is thrown.
   */
  async failed(updateId: number, err: unknown): Promise<boolean> {
    if (!isOwnFailure(err)) return false;
    if (this.#updateId !== updateId) {
      this.#updateId = updateId;
      this.#failures = 0;
    }
    this.#failures += 1;
    if (this.#failures < GIVE_UP_AFTER) return false;
    const code = (err as { code?: unknown } | null)?.code;
    const said = `${typeof code === 'string' ? `${code}: ` : ''}${err instanceof Error ? err.message : String(err)}`;
    await this.#skip({
      messageId: `update:${updateId}`,
      code: UNHANDLED_CODE,
      reason: `given up after ${this.#failures} failures: ${said}`.slice(0, REASON_CHARS),
      summary: `update ${updateId}`,
    });
    this.#logger.error({ update_id: updateId, code: UNHANDLED_CODE, failures: this.#failures }, `update ${updateId} given up: ${said}`);
    this.#updateId = undefined;
    this.#failures = 0;
    return true;
  }

  /** Update `updateId` was handled: its count, if any, starts over. */
  succeeded(updateId: number): void {
    if (this.#updateId === updateId) {
      this.#updateId = undefined;
      this.#failures = 0;
    }
  }
}
