/**
 * The secrets a connector's webhooks may be signed with, kept in memory: the
 * receiver reads its registration from the store once, not once per webhook.
 * A signature that does not match makes it read the store again (another
 * process may have rotated the secret: `threadgate secrets rotate`) and try
 * once more with what changed.
 */
import type { RegistrationRow, RegistrationsRepo } from '../store/registrations-repo.ts';

export class WebhookSecrets {
  readonly #repo: RegistrationsRepo;
  readonly #rows = new Map<string, RegistrationRow>();

  constructor(repo: RegistrationsRepo) {
    this.#repo = repo;
  }

  /** Secrets accepted at `now`, current first; undefined while the connector has no registration. */
  accepted(connector: string, now: number): string[] | undefined {
    const row = this.#rows.get(connector) ?? this.#read(connector);
    return row && secretsOf(row, now);
  }

  /**
   * After a signature failed with `tried`: the secrets read again from the
   * store, or undefined when they are the same (the failure stands).
   */
  reread(connector: string, now: number, tried: readonly string[]): string[] | undefined {
    const row = this.#read(connector);
    const fresh = row && secretsOf(row, now);
    if (!fresh || (fresh.length === tried.length && fresh.every((s, i) => s === tried[i]))) return undefined;
    return fresh;
  }

  #read(connector: string): RegistrationRow | undefined {
    const row = this.#repo.get(connector);
    if (row) this.#rows.set(connector, row);
    else this.#rows.delete(connector);
    return row;
  }
}

function secretsOf(row: RegistrationRow, now: number): string[] {
  const secrets = [row.secret];
  if (row.previousSecret !== null && (row.previousSecretExpiresAt ?? 0) > now) secrets.push(row.previousSecret);
  return secrets;
}
