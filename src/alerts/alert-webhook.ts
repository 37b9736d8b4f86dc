/**
 * Alerts to a webhook, signed as Standard Webhooks (https://www.standardwebhooks.com):
 *
 *   webhook-id:        the alert's id (the same on every retry: the receiver's dedup key)
 *   webhook-timestamp: Unix seconds of this attempt
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>"> with the whsec_ secret
 *
 * A 2xx is sent; a 429 or 503 with Retry-After is retried no sooner; another
 * 4xx is refused for good; a 5xx, a redirect (never followed) or no answer
 * within 10 s is retried. Errors name the host, never the URL's path or query
 * (which may hold a token).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { parseRetryAfter } from '../platform/retry.ts';
import type { AlertBody } from './alert-model.ts';
import { AlertSendError } from './errors.ts';

const TIMEOUT_MS = 10_000;

export class AlertWebhook {
  readonly #url: string;
  readonly #key: KeyObject;
  readonly host: string;

  constructor(url: string, secret: string) {
    this.#url = url;
    this.#key = createSecretKey(Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    this.host = new URL(url).host;
  }

  /** Sends one alert; resolves with the answer's status, or throws `AlertSendError`. */
  async send(alert: AlertBody, signal?: AbortSignal): Promise<number> {
    const body = JSON.stringify(alert);
    const seconds = Math.floor(Date.now() / 1000);
    const signature = `v1,${createHmac('sha256', this.#key).update(`${alert.id}.${seconds}.`).update(body).digest('base64')}`;
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'threadgate-alerts', 'webhook-id': alert.id, 'webhook-timestamp': String(seconds), 'webhook-signature': signature },
        body,
        redirect: 'manual',
        signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) : AbortSignal.timeout(TIMEOUT_MS),
      });
      await response.arrayBuffer().catch(() => undefined);
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause;
      const why = (err as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS} ms` : (cause?.code ?? (err as Error).message);
      throw new AlertSendError(`the alert webhook at ${this.host} cannot be reached: ${why}`, { cause: err });
    }
    const status = response.status;
    if (status >= 200 && status <= 299) return status;
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined);
    const permanent = status >= 400 && status <= 499 && status !== 408 && status !== 425 && status !== 429;
    throw new AlertSendError(`the alert webhook at ${this.host} answered ${status}`, { permanent, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
}
