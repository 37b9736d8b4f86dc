/**
 * The `alerts:` section: where alerts go (a signed webhook, e-mail through an
 * SMTP server of their own) and how often. Absent: no alerts.
 *
 *   alerts:
 *     webhook_url: https://ops.example.com/hooks/threadgate
 *     webhook_secret: ${ALERT_WEBHOOK_SECRET}   # whsec_…: signed as Standard Webhooks
 *     email_to: [oncall@example.com]
 *     smtp: { host: smtp.example.com, port: 587, secure: false, user: alerts@example.com, password: "${ALERT_SMTP_PASSWORD}", from: alerts@example.com }
 *     after: 5m          # a connector unhealthy or paused this long is alerted
 *     every: 15m         # at most one alert per kind and connector in this time, with the count since the last
 *     backlog_age: 15m   # the oldest queued job older than this is alerted
 *     check_every: 10s   # how often the conditions are read
 */
import { z } from 'zod';
import { duration, httpUrl } from './setting-types.ts';

const address = z.email({ error: 'expected an e-mail address' });

export const AlertSmtp = z.strictObject({
  host: z.string().trim().min(1, { error: 'expected the SMTP server’s host name' }),
  port: z.number().int().min(1).max(65_535).default(587),
  /** TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure: z.boolean().default(false),
  user: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
  /** The From of alert mails. */
  from: address,
});

export const AlertSettings = z
  .strictObject({
    webhook_url: httpUrl.optional(),
    /** The Standard Webhooks secret (`whsec_` and base64) the webhook's requests are signed with. */
    webhook_secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, { error: 'expected a Standard Webhooks secret: whsec_ followed by base64 (e.g. whsec_ and the output of `openssl rand -base64 32`)' })
      .optional(),
    email_to: z.union([address.transform((one) => [one]), z.array(address).min(1, { error: 'expected at least one address' })]).optional(),
    smtp: AlertSmtp.optional(),
    after: duration('0s', '1d').prefault('5m'),
    every: duration('1s', '7d').prefault('15m'),
    backlog_age: duration('10s', '30d').prefault('15m'),
    check_every: duration('100ms', '5m').prefault('10s'),
  })
  .superRefine((alerts, ctx) => {
    if (alerts.webhook_url === undefined && alerts.email_to === undefined) ctx.addIssue({ code: 'custom', path: ['webhook_url'], message: 'expected webhook_url or email_to: where alerts go' });
    if (alerts.webhook_url !== undefined && alerts.webhook_secret === undefined) ctx.addIssue({ code: 'custom', path: ['webhook_secret'], message: 'expected the secret the alert webhook is signed with (whsec_…)' });
    if (alerts.email_to !== undefined && alerts.smtp === undefined) ctx.addIssue({ code: 'custom', path: ['smtp'], message: 'expected the SMTP server alert mails go through (host, port, from)' });
  });
export type AlertSettings = z.output<typeof AlertSettings>;
