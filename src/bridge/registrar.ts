/**
 * Channel registration: each connector owns one platform channel
 * configuration whose `reply_webhook_url` is `<public_url>/webhooks/<name>`
 * and whose `webhook_secret_key` the gateway generated itself.
 *
 * At start-up the configuration is found by the id stored locally and PATCHed
 * when its name, room or URL changed; created when it is gone; or adopted when
 * the store lost its row but the platform still has a configuration pointing
 * at our URL (the secret is then PATCHed to a new one of ours). While the
 * platform is unreachable it keeps trying in the background; jobs wait. A
 * refused token (401/403) is also told to `onAuthRefused`, which pauses the
 * connector's posts (`auth-pause.ts`).
 *
 * Replicas on one database register under a lock across them (`lock`,
 * store-lock.ts, `register:<connector>`): the second one in reads the row the
 * first stored and finds that configuration, instead of creating another.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { PlatformHttpError, PlatformRequestInvalidError } from '../platform/errors.ts';
import type { ChannelConfiguration, ChannelConfigurationPatch } from '../platform/schemas/unified-messaging.ts';
import type { UnifiedMessagingClient } from '../platform/unified-messaging-client.ts';
import { sleep } from '../base/sleep.ts';
import type { Store } from '../store/database.ts';
import type { RegistrationRow } from '../store/registrations-repo.ts';
import { isAuthRefusal } from './auth-pause.ts';
import { NotRegisteredError } from './errors.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import type { StoreLock } from './store-lock.ts';

export const DEFAULT_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface RegistrationTarget {
  connector: string;
  messagingChannel: string;
  roomId: string;
  replyWebhookUrl: string;
  /** The platform's webhook retries; absent: the platform's default. */
  maxRetryCount?: number | undefined;
}

export function newWebhookSecret(): string {
  return randomBytes(32).toString('hex');
}

const isNotFound = (err: unknown) => err instanceof PlatformHttpError && err.status === 404;
const definitelyRefused = (err: unknown) =>
  err instanceof PlatformRequestInvalidError || (err instanceof PlatformHttpError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429);

export class Registrar {
  readonly #client: UnifiedMessagingClient;
  readonly #store: Store;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #onAuthRefused: ((connector: string, err: PlatformHttpError) => void) | undefined;
  readonly #mutex = new KeyedMutex();
  readonly #lock: StoreLock;

  constructor(deps: {
    client: UnifiedMessagingClient;
    store: Store;
    logger: Logger;
    now?: () => number;
    onAuthRefused?: (connector: string, err: PlatformHttpError) => void;
    /** A lock across replicas (store-lock.ts); absent: this process is the only one. */
    lock?: StoreLock;
  }) {
    this.#client = deps.client;
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
    this.#onAuthRefused = deps.onAuthRefused;
    this.#lock = deps.lock ?? ((_name, fn) => fn());
  }

  /** One registration step for `connector` at a time: in this process, and across replicas. */
  #exclusive<T>(connector: string, fn: () => Promise<T>): Promise<T> {
    return this.#mutex.run(connector, () => this.#lock(`register:${connector}`, fn));
  }

  /** The stored registration; NotRegisteredError (retryable) while there is none. */
  async current(connector: string): Promise<RegistrationRow> {
    const row = await this.#store.read.registrations.get(connector);
    if (!row) throw Object.assign(new NotRegisteredError(`connector ${connector} has no channel configuration yet`), { retryAfterMs: 5_000 });
    return row;
  }

  /** Makes the platform's configuration match `target`; returns the stored registration. */
  async ensure(target: RegistrationTarget): Promise<RegistrationRow> {
    try {
      return await this.#exclusive(target.connector, () => this.#ensure(target));
    } catch (err) {
      if (isAuthRefusal(err)) this.#onAuthRefused?.(target.connector, err);
      throw err;
    }
  }

  /** After the platform said the configuration is gone: register again, once, whoever asks. */
  reregister(target: RegistrationTarget, staleConfigId: string): Promise<RegistrationRow> {
    return this.#exclusive(target.connector, async () => {
      const row = await this.#store.read.registrations.get(target.connector);
      if (row && row.configId !== staleConfigId) return row; // someone already did
      this.#logger.warn({ connector: target.connector, config_id: staleConfigId }, 'channel configuration gone; registering again');
      return this.#ensure(target);
    });
  }

  /** Keeps trying `ensure` with capped backoff until it succeeds or `signal` aborts. */
  async ensureInBackground(target: RegistrationTarget, signal: AbortSignal): Promise<RegistrationRow | undefined> {
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        return await this.ensure(target);
      } catch (err) {
        const delay = Math.min(60_000, 1_000 * 2 ** Math.min(attempt - 1, 6));
        this.#logger.warn({ err, connector: target.connector, attempt, retry_in_ms: delay }, 'channel registration failed');
        await sleep(delay, signal);
      }
    }
    return undefined;
  }

  /**
   * A new secret: stored first (the old one stays valid for `graceMs`), then
   * sent to the platform; restored when the platform refuses.
   */
  rotate(connector: string, graceMs: number = DEFAULT_ROTATION_GRACE_MS): Promise<RegistrationRow> {
    return this.#exclusive(connector, async () => {
      const before = await this.current(connector);
      const secret = newWebhookSecret();
      const now = this.#now();
      await this.#store.write((tx) => tx.registrations.rotate(connector, secret, now + graceMs, now));
      try {
        await this.#client.patchConfiguration(before.configId, { webhook_secret_key: secret });
      } catch (err) {
        // Only a definite refusal proves the platform kept the old secret. After a timeout or a 5xx
        // it may sign with the new one already: keep both accepted (the old one for the grace period).
        if (definitelyRefused(err)) await this.#store.write((tx) => tx.registrations.restore(before, this.#now()));
        else this.#logger.error({ connector, grace_ms: graceMs }, 'rotation not confirmed by the platform: both secrets stay accepted; run the rotation again');
        throw err;
      }
      this.#logger.info({ connector, config_id: before.configId, grace_ms: graceMs }, 'webhook secret rotated');
      return this.current(connector);
    });
  }

  async #ensure(target: RegistrationTarget): Promise<RegistrationRow> {
    const row = await this.#store.read.registrations.get(target.connector);
    const desired = {
      name: `threadgate ${target.connector}`,
      messaging_channel: target.messagingChannel,
      room_id: target.roomId,
      reply_webhook_url: target.replyWebhookUrl,
      ...(target.maxRetryCount === undefined ? {} : { max_retry_count: target.maxRetryCount }),
    };
    if (row) {
      try {
        const config = await this.#client.getConfiguration(row.configId);
        const patch = changedFields(desired, config);
        if (Object.keys(patch).length > 0) {
          await this.#client.patchConfiguration(row.configId, patch);
          this.#logger.info({ connector: target.connector, config_id: row.configId, changed: Object.keys(patch) }, 'channel configuration updated');
        }
        return this.#save(target, row.configId, row.secret);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const secret = row?.secret ?? newWebhookSecret();
    const adopted = row ? undefined : await this.#findByUrl(target.replyWebhookUrl);
    if (adopted) {
      await this.#client.patchConfiguration(adopted.id, { ...desired, webhook_secret_key: secret });
      this.#logger.info({ connector: target.connector, config_id: adopted.id }, 'channel configuration adopted');
      return this.#save(target, adopted.id, secret);
    }
    const created = await this.#client.createConfiguration({ ...desired, webhook_secret_key: secret });
    this.#logger.info({ connector: target.connector, config_id: created.id }, 'channel configuration created');
    return this.#save(target, created.id, secret);
  }

  async #findByUrl(url: string): Promise<ChannelConfiguration | undefined> {
    for await (const config of this.#client.listConfigurations()) if (config.reply_webhook_url === url) return config;
    return undefined;
  }

  async #save(target: RegistrationTarget, configId: string, secret: string): Promise<RegistrationRow> {
    const row = { connector: target.connector, configId, name: `threadgate ${target.connector}`, roomId: target.roomId, replyWebhookUrl: target.replyWebhookUrl, secret };
    await this.#store.write((tx) => tx.registrations.save(row, this.#now()));
    return this.current(target.connector);
  }
}

type Desired = Required<Pick<ChannelConfigurationPatch, 'name' | 'messaging_channel' | 'room_id' | 'reply_webhook_url'>> &
  Pick<ChannelConfigurationPatch, 'max_retry_count'>;

function changedFields(desired: Desired, config: ChannelConfiguration): ChannelConfigurationPatch {
  const patch: ChannelConfigurationPatch = {};
  if (desired.max_retry_count !== undefined && config.max_retry_count !== desired.max_retry_count) {
    patch.max_retry_count = desired.max_retry_count;
  }
  if (config.name !== desired.name) patch.name = desired.name;
  if (config.messaging_channel !== desired.messaging_channel) patch.messaging_channel = desired.messaging_channel;
  if (config.room_id !== desired.room_id) patch.room_id = desired.room_id;
  if (config.reply_webhook_url !== desired.reply_webhook_url) patch.reply_webhook_url = desired.reply_webhook_url;
  return patch;
}
