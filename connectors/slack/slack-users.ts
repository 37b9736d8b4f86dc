/**
 * Who wrote a message: a Slack user's name (and e-mail address, when the
 * app has `users:read.email`) from users.info, kept in memory for an hour,
 * at most `MAX_KEPT` people (then forgotten). A user Slack does not describe
 * (a look-up refused, rate-limited or too slow) is `undefined`: the message
 * goes without a name rather than waiting, and the next one asks again.
 * Users of another organisation in a Slack Connect channel are looked up the
 * same way (users:read covers them).
 */
import type { Logger } from '../../src/connector/api.ts';
import type { SlackApi } from './slack-api.ts';
import { UserInfo } from './slack-schemas.ts';

const TTL_MS = 60 * 60_000;
const MAX_KEPT = 5_000;

export interface SlackPerson {
  id: string;
  name: string;
  email?: string;
  teamId?: string;
}

export class SlackUsers {
  readonly #api: SlackApi;
  readonly #logger: Logger;
  readonly #known = new Map<string, { person: SlackPerson; at: number }>();

  constructor(api: SlackApi, logger: Logger) {
    this.#api = api;
    this.#logger = logger;
  }

  /** The person of `userId`, from the cache or users.info; undefined when Slack did not say (throws only when `signal` aborts). */
  async person(userId: string, signal: AbortSignal): Promise<SlackPerson | undefined> {
    const kept = this.#known.get(userId);
    if (kept !== undefined && performance.now() - kept.at < TTL_MS) return kept.person;
    try {
      const { user } = await this.#api.call('users.info', { user: userId }, UserInfo, { signal });
      const name = user.profile?.display_name?.trim() || user.profile?.real_name?.trim() || user.real_name?.trim() || user.name?.trim() || userId;
      const person: SlackPerson = { id: user.id, name, ...(user.profile?.email ? { email: user.profile.email } : {}), ...(user.team_id ? { teamId: user.team_id } : {}) };
      if (this.#known.size >= MAX_KEPT) this.#known.clear();
      this.#known.set(userId, { person, at: performance.now() });
      return person;
    } catch (err) {
      if (signal.aborted) throw err;
      this.#logger.info({ user: userId, error: (err as Error).message }, 'slack user not described; the message goes without a name');
      return kept?.person;
    }
  }

  /** The display names of `ids` (those Slack described), for a text's mentions. */
  async names(ids: readonly string[], signal: AbortSignal): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const id of ids) {
      const person = await this.person(id, signal);
      if (person !== undefined) names.set(id, person.name);
    }
    return names;
  }
}
