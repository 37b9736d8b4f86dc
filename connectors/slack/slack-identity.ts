/**
 * Who the gateway is in Slack, from auth.test (https://api.slack.com/methods/auth.test):
 * the workspace (`team`, `team_id`, its address `url`), the app's bot user
 * (`user`, `user_id`) and its bot id (`bot_id`). Asked at start and again,
 * with backoff (5 s doubling to 5 min), until Slack answers; a refused token
 * keeps being asked too (an operator may reinstall the app), and health says
 * why meanwhile. The gateway's own messages are told by these ids.
 */
import { sleep, type Logger } from '../../src/connector/api.ts';
import type { Self } from './message-verdict.ts';
import type { SlackApi } from './slack-api.ts';
import { AuthTest } from './slack-schemas.ts';

const FIRST_WAIT_MS = 5_000;
const LONGEST_WAIT_MS = 5 * 60_000;

export class SlackIdentity {
  readonly #api: SlackApi;
  readonly #logger: Logger;
  #who: AuthTest | undefined;
  #asking: Promise<AuthTest> | undefined;
  lastError: string | null = null;

  constructor(api: SlackApi, logger: Logger) {
    this.#api = api;
    this.#logger = logger;
  }

  /** What auth.test answered, once it did. */
  get known(): AuthTest | undefined {
    return this.#who;
  }

  /** The ids known so far (none before auth.test answered). */
  self(): Self {
    return { userId: this.#who?.user_id, botId: this.#who?.bot_id };
  }

  /** auth.test's answer, asked now unless known; one request at a time. */
  async whoAmI(signal: AbortSignal): Promise<AuthTest> {
    if (this.#who !== undefined) return this.#who;
    this.#asking ??= this.#api.call('auth.test', {}, AuthTest, { signal }).then(
      (who) => {
        this.#who = who;
        this.lastError = null;
        this.#logger.info({ team: who.team ?? null, team_id: who.team_id ?? null, bot_user: who.user ?? null, bot_user_id: who.user_id }, 'slack: signed in as the app’s bot user');
        return who;
      },
      (err: unknown) => {
        if (!signal.aborted) this.lastError = (err as Error).message;
        throw err;
      },
    ).finally(() => {
      this.#asking = undefined;
    });
    return this.#asking;
  }

  /** Asks until Slack answers or `signal` aborts (the start's loop). */
  async keepAsking(signal: AbortSignal): Promise<void> {
    let waitMs = FIRST_WAIT_MS;
    while (!signal.aborted && this.#who === undefined) {
      try {
        await this.whoAmI(signal);
      } catch (err) {
        if (signal.aborted) return;
        this.#logger.warn({ error: (err as Error).message, retry_in_ms: waitMs }, 'slack auth.test failed; asked again');
        await sleep(waitMs, signal);
        waitMs = Math.min(waitMs * 2, LONGEST_WAIT_MS);
      }
    }
  }

  /** The token changed (a settings reload): asked again. */
  forget(): void {
    this.#who = undefined;
  }
}
