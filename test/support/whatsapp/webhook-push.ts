/**
 * The counterpart's push side, as Meta's webhooks do it
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started,
 * https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components):
 *
 * - verification: `GET <callback>?hub.mode=subscribe&hub.challenge=<n>&hub.verify_token=<token>`; the
 *   callback is subscribed only when it answers 200 with the challenge as its body;
 * - notifications: `POST <callback>` with the JSON body and `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of
 *   the body with the app secret>`, one at a time in order. Meta sends a notification again until it is
 *   answered 200; here a test sends one again on purpose (`resend`), the same bytes.
 */
import { createHmac, randomInt } from 'node:crypto';

export interface PushedNotification {
  /** The body as sent (the bytes signed). */
  raw: string;
  status: number;
  /** The answer's body. */
  answer: string;
}

export interface VerifyAnswer {
  status: number;
  body: string;
  challenge: string;
}

export class WebhookPush {
  readonly pushed: PushedNotification[] = [];
  callbackUrl: string | undefined;
  readonly #appSecret: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(appSecret: string) {
    this.#appSecret = appSecret;
  }

  /** Meta's verification request with `token`; subscribes the callback when it answers the challenge. */
  async verify(callbackUrl: string, token: string): Promise<VerifyAnswer> {
    const challenge = String(randomInt(1_000_000_000, 2_000_000_000));
    const query = new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.challenge': challenge, 'hub.verify_token': token });
    const res = await fetch(`${callbackUrl}?${query}`);
    const body = await res.text();
    if (res.status === 200 && body === challenge) this.callbackUrl = callbackUrl;
    return { status: res.status, body, challenge };
  }

  signature(raw: string, secret: string = this.#appSecret): string {
    return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  }

  /** POSTs a notification to the subscribed callback, after the ones before it; `secret` signs it instead of the app secret. */
  send(body: unknown, options: { secret?: string; signature?: string | null } = {}): Promise<PushedNotification> {
    return this.sendRaw(JSON.stringify(body), options);
  }

  /** The same bytes again (Meta's retry of a notification). */
  resend(notification: PushedNotification): Promise<PushedNotification> {
    return this.sendRaw(notification.raw, {});
  }

  sendRaw(raw: string, options: { secret?: string; signature?: string | null }): Promise<PushedNotification> {
    const url = this.callbackUrl;
    if (url === undefined) return Promise.reject(new Error('no callback URL is subscribed: call subscribe() first'));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'facebookexternalua' };
    const signature = options.signature === undefined ? this.signature(raw, options.secret) : options.signature;
    if (signature !== null) headers['x-hub-signature-256'] = signature;
    const sent = this.#queue.then(async () => {
      const res = await fetch(url, { method: 'POST', headers, body: raw });
      const pushed = { raw, status: res.status, answer: await res.text() };
      this.pushed.push(pushed);
      return pushed;
    });
    this.#queue = sent.catch(() => undefined);
    return sent;
  }

  /** Resolves once every notification queued so far was answered (or failed). */
  idle(): Promise<void> {
    return this.#queue.then(() => undefined);
  }
}
