/**
 * Where alerts go, from the `alerts:` settings: the signed webhook and the
 * mail to `email_to`, each under a stable name (`webhook`, `email`) that an
 * `alerts.send` job names, so a job queued by one replica is sent by any.
 */
import type { AlertSettings } from '../config/alert-settings.ts';
import type { AlertBody } from './alert-model.ts';
import { AlertMail } from './alert-mail.ts';
import { AlertWebhook } from './alert-webhook.ts';

export type DestinationName = 'webhook' | 'email';

export interface Destination {
  name: DestinationName;
  /** Where, for logs and `alerts test` (a host, addresses: no secret). */
  target: string;
  /** Sends one alert; resolves with the answer (a status, the server's reply), or throws `AlertSendError`. */
  send(alert: AlertBody, signal?: AbortSignal): Promise<string>;
  close(): void;
}

export function destinationsOf(settings: AlertSettings): Destination[] {
  const out: Destination[] = [];
  if (settings.webhook_url !== undefined && settings.webhook_secret !== undefined) {
    const webhook = new AlertWebhook(settings.webhook_url, settings.webhook_secret);
    out.push({ name: 'webhook', target: webhook.host, send: async (alert, signal) => String(await webhook.send(alert, signal)), close: () => {} });
  }
  if (settings.email_to !== undefined && settings.smtp !== undefined) {
    const mail = new AlertMail(settings.smtp, settings.email_to);
    out.push({ name: 'email', target: mail.recipients, send: (alert) => mail.send(alert), close: () => mail.close() });
  }
  return out;
}
