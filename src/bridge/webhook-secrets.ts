/**
 * The secrets a connector's webhooks may be signed with, kept in memory for
 * at most a second: the receiver reads its registration from the store once a
 * second, not once per webhook, and a secret rotated out (also by another
 * process: `threadgate secrets rotate --grace 0`) stops being accepted within
 * that second. A signature that does not match makes it read the store at
 * once (a new secret may be in use already) and try once more with what
 * changed.
 */
import type { RegistrationRow } from '../store/registrations-repo.ts';

/** How long a read registration is used before the store is asked again. */
const MAX_AGE_MS = 1_000;

export class WebhookSecrets {
  readonly #load: (connector: string) => Promise<RegistrationRow | undefined>;
  readonly #rows = new Map<string, { row: RegistrationRow; readAt: number }>();

  constructor(load: (connector: string) => Promise<RegistrationRow | undefined>) {
    this.#load = load;
  }

  /** Secrets accepted at `now`, current first; undefined while the connector has no registration. */
  async accepted(connector: string, now: number): Promise<string[] | undefined> {
    const cached = this.#rows.get(connector);
    const row = cached && now - cached.readAt < MAX_AGE_MS && now >= cached.readAt ? cached.row : await this.#read(connector, now);
    return row && secretsOf(row, now);
  }

  /**
   * After a signature failed with `tried`: the secrets read again from the
   * store, or undefined when they are the same (the failure stands).
   */
  async reread(connector: string, now: number, tried: readonly string[]): Promise<string[] | undefined> {
    const row = await this.#read(connector, now);
    const fresh = row && secretsOf(row, now);
    if (!fresh || (fresh.length === tried.length && fresh.every((s, i) => s === tried[i]))) return undefined;
    return fresh;
  }

  async #read(connector: string, now: number): Promise<RegistrationRow | undefined> {
    const row = await this.#load(connector);
    if (row) this.#rows.set(connector, { row, readAt: now });
    else this.#rows.delete(connector);
    return row;
  }
}

function secretsOf(row: RegistrationRow, now: number): string[] {
  const secrets = [row.secret];
  if (row.previousSecret !== null && (row.previousSecretExpiresAt ?? 0) > now) secrets.push(row.previousSecret);
  return secrets;
}
