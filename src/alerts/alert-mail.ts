/**
 * Alerts by e-mail, through the SMTP server of the `alerts.smtp` settings:
 * one plain-text mail per alert to every `email_to` address, its subject the
 * alert's title, its Message-ID made from the alert's id (so a mail sent
 * twice after a lost answer is one thread to a reader). An answer of 5xx
 * refuses the mail for good; anything else (4xx, no connection) is retried.
 * nodemailer is loaded at the first mail, not at every start.
 */
import type { AlertSmtp } from '../config/alert-settings.ts';
import type { AlertBody } from './alert-model.ts';
import { AlertSendError } from './errors.ts';

type Smtp = import('zod').output<typeof AlertSmtp>;
type Transport = { sendMail(mail: Record<string, unknown>): Promise<{ response?: string }>; close(): void };

/** The mail's text: the title, the reason, what it is about, and where to look. */
export function mailText(alert: AlertBody): string {
  const lines = [alert.title, '', alert.reason, ''];
  if (alert.connector) lines.push(`Connector: ${alert.connector}`);
  lines.push(`State: ${alert.state}`, `Since: ${alert.since}`);
  if (alert.count > 1) lines.push(`Occurrences since the last alert: ${alert.count}`);
  if (alert.latest) lines.push('', `Latest: ${alert.latest.summary}`, `Error: ${alert.latest.code ? `${alert.latest.code}: ` : ''}${alert.latest.reason}`, `Open it: ${alert.latest.link}`);
  lines.push('', `Gateway: ${alert.gateway.public_url} (replica ${alert.gateway.replica})`, `Alert id: ${alert.id}`);
  return `${lines.join('\n')}\n`;
}

export class AlertMail {
  readonly #smtp: Smtp;
  readonly #to: readonly string[];
  #transport: Promise<Transport> | undefined;

  constructor(smtp: Smtp, to: readonly string[]) {
    this.#smtp = smtp;
    this.#to = to;
  }

  get recipients(): string {
    return this.#to.join(', ');
  }

  /** Sends one alert; resolves with the server's answer, or throws `AlertSendError`. */
  async send(alert: AlertBody): Promise<string> {
    const transport = await (this.#transport ??= this.#open());
    const domain = this.#smtp.from.split('@')[1] ?? 'threadgate.invalid';
    try {
      const info = await transport.sendMail({
        from: this.#smtp.from,
        to: [...this.#to],
        subject: `[threadgate] ${alert.title}`,
        text: mailText(alert),
        messageId: `<${alert.id}@${domain}>`,
        headers: { 'X-Threadgate-Alert': `${alert.kind}; ${alert.state}` },
      });
      return info.response ?? 'sent';
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      const why = (err as Error).message;
      throw new AlertSendError(`the alert mail through ${this.#smtp.host}:${this.#smtp.port} was not sent: ${why}`, { permanent: code !== undefined && code >= 500, cause: err });
    }
  }

  close(): void {
    void this.#transport?.then((t) => t.close(), () => undefined);
  }

  async #open(): Promise<Transport> {
    const nodemailer = await import('nodemailer');
    const s = this.#smtp;
    return nodemailer.createTransport({
      host: s.host,
      port: s.port,
      secure: s.secure,
      ...(s.user !== undefined ? { auth: { user: s.user, pass: s.password ?? '' } } : {}),
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    }) as unknown as Transport;
  }
}
