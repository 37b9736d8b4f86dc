/**
 * Channel registrations: the platform channel configuration of each
 * connector and the webhook secrets the gateway generated for it (the
 * previous one stays valid for a grace period after a rotation).
 */
import type { Statement } from 'better-sqlite3';
import type { Store } from './database.ts';

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
  readonly #sql: Record<'get' | 'upsert' | 'rotate' | 'restore', Statement>;

  constructor(store: Store) {
    const db = store.sqlite;
    this.#sql = {
      get: db.prepare(`select * from channel_registrations where connector = ?`),
      upsert: db.prepare(
        `insert into channel_registrations (connector, config_id, name, room_id, reply_webhook_url, secret, created_at, updated_at)
         values (@connector, @configId, @name, @roomId, @replyWebhookUrl, @secret, @now, @now)
         on conflict (connector) do update set config_id = excluded.config_id, name = excluded.name,
           room_id = excluded.room_id, reply_webhook_url = excluded.reply_webhook_url, secret = excluded.secret,
           updated_at = excluded.updated_at`,
      ),
      rotate: db.prepare(
        `update channel_registrations set previous_secret = secret, previous_secret_expires_at = ?, secret = ?, updated_at = ?
         where connector = ?`,
      ),
      restore: db.prepare(
        `update channel_registrations set secret = ?, previous_secret = ?, previous_secret_expires_at = ?, updated_at = ?
         where connector = ?`,
      ),
    };
  }

  get(connector: string): RegistrationRow | undefined {
    const r = this.#sql.get.get(connector) as RawRegistration | undefined;
    return r && toRegistration(r);
  }

  /** Records the configuration (new or adopted) and its current secret. */
  save(row: Omit<RegistrationRow, 'previousSecret' | 'previousSecretExpiresAt'>, now: number): void {
    this.#sql.upsert.run({ ...row, now });
  }

  /** The current secret becomes the previous one, valid until `previousExpiresAt`. */
  rotate(connector: string, newSecret: string, previousExpiresAt: number, now: number): void {
    this.#sql.rotate.run(previousExpiresAt, newSecret, now, connector);
  }

  /** Puts back the secrets a refused rotation replaced, in one statement. */
  restore(before: RegistrationRow, now: number): void {
    this.#sql.restore.run(before.secret, before.previousSecret, before.previousSecretExpiresAt, now, before.connector);
  }
}
