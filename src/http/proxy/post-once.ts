/**
 * Idempotent unified-messaging posts through the proxy: a
 * `POST …/unified_messaging/<config_id>/messages` whose message_ids were all
 * posted (successfully) before, within retention, is answered with the stored
 * original answer — header `x-threadgate-replayed: true` — instead of posting
 * again. Posts of one configuration go one at a time, so two copies of the
 * same request racing each other are posted once. A post mixing new and seen
 * ids is forwarded as it is.
 */
import { KeyedMutex } from '../../bridge/keyed-mutex.ts';
import type { EndpointSpec } from '../../platform/endpoints/types.ts';
import type { Store } from '../../store/database.ts';
import { BufferedBody } from './answer-body.ts';
import type { Forwarded } from './forward.ts';

const IDEMPOTENT_ENDPOINT = 'createUnifiedMessages';

export interface OncePost {
  configId: string;
  messageIds: string[];
}

export class PostOnce {
  readonly #store: Store;
  readonly #mutex = new KeyedMutex();
  readonly #now: () => number;

  constructor(store: Store, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** The post's key when this request is one (checked body in hand), else undefined. */
  applies(endpoint: EndpointSpec, params: Record<string, string>, json: unknown): OncePost | undefined {
    if (endpoint.id !== IDEMPOTENT_ENDPOINT) return undefined;
    const configId = params.config_id;
    const messages = (json as { messages?: { message_id?: unknown }[] }).messages ?? [];
    const messageIds = messages.map((m) => m.message_id).filter((id): id is string => typeof id === 'string');
    if (configId === undefined || messageIds.length === 0 || messageIds.length !== messages.length) return undefined;
    return { configId, messageIds };
  }

  async run(post: OncePost, send: () => Promise<Forwarded>): Promise<Forwarded> {
    return this.#mutex.run(post.configId, async () => {
      const stored = await this.#store.read.proxyPosts.allSeen(post.configId, post.messageIds);
      if (stored) {
        const bytes = Buffer.from(stored.response);
        return {
          status: stored.status,
          headers: { 'content-type': 'application/json', 'content-length': String(bytes.length), 'x-threadgate-replayed': 'true' },
          body: new BufferedBody(bytes),
        };
      }
      const answer = await send();
      if (answer.status < 200 || answer.status >= 300) return answer;
      const bytes = await answer.body.read();
      const response = bytes.toString('utf8');
      await this.#store.write((tx) => tx.proxyPosts.record(post.configId, post.messageIds, { status: answer.status, response }, this.#now()));
      return { ...answer, body: new BufferedBody(bytes) }; // the bytes as they came: the platform's Content-Length still holds
    });
  }
}
