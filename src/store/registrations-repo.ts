/**
 * Channel registrations: the platform channel configuration of each
 * connector and the webhook secrets the gateway generated for it (the
 * previous one stays valid for a grace period after a rotation).
 */
import type { Sql } from './sql.ts';

export interface RegistrationRow {
  connector: string;
  configId: string;
  name: string;
  roomId: string;
  replyWebhookUrl: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
}

interface RawRegistration {
  connector: string;
  config_id: string;
  name: string;
  room_id: string;
  reply_webhook_url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
}

const toRegistration = (r: RawRegistration): RegistrationRow => ({
  connector: r.connector,
  configId: r.config_id,
  name: r.name,
  roomId: r.room_id,
  replyWebhookUrl: r.reply_webhook_url,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
});

export class RegistrationsRepo {
  readonly #db: Sql;

  constructor(db: Sql) {
    this.#db = db;
  }

  async get(connector: string): Promise<RegistrationRow | undefined> {
    const r = await this.#db.get<RawRegistration>(`select * from channel_registrations where connector = ?`, [connector]);
    return r && toRegistration(r);
  }

  /** Records the configuration (new or adopted) and its current secret. */
  async save(row: Omit<RegistrationRow, 'previousSecret' | 'previousSecretExpiresAt'>, now: number): Promise<void> {
    await this.#db.run(
      `insert into channel_registrations (connector, config_id, name, room_id, reply_webhook_url, secret, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (connector) do update set config_id = excluded.config_id, name = excluded.name,
         room_id = excluded.room_id, reply_webhook_url = excluded.reply_webhook_url, secret = excluded.secret,
         updated_at = excluded.updated_at`,
      [row.connector, row.configId, row.name, row.roomId, row.replyWebhookUrl, row.secret, now, now],
    );
  }

  /** The current secret becomes the previous one, valid until `previousExpiresAt`. */
  async rotate(connector: string, newSecret: string, previousExpiresAt: number, now: number): Promise<void> {
    await this.#db.run(
      `update channel_registrations set previous_secret = secret, previous_secret_expires_at = ?, secret = ?, updated_at = ?
       where connector = ?`,
      [previousExpiresAt, newSecret, now, connector],
    );
  }

  /** Puts back the secrets a refused rotation replaced, in one statement. */
  async restore(before: RegistrationRow, now: number): Promise<void> {
    await this.#db.run(
      `update channel_registrations set secret = ?, previous_secret = ?, previous_secret_expires_at = ?, updated_at = ?
       where connector = ?`,
      [before.secret, before.previousSecret, before.previousSecretExpiresAt, now, before.connector],
    );
  }
}
