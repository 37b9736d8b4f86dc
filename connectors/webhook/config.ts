/**
 * The webhook connector's own settings keys (everything of its `connectors:`
 * entry but name, type, room_id and module). Strict: an unknown key is a typo
 * and refused. Every problem carries the key it is about as its path, and no
 * message ever repeats a secret.
 *
 *   - name: partner-hooks
 *     type: webhook
 *     inbound_secret: ${PARTNER_INBOUND_SECRET}    # or allow_unsigned: true (local demo only)
 *     outbound_url: https://partner.example/threadgate
 *     outbound_secret: ${PARTNER_OUTBOUND_SECRET}
 *     timeout_ms: 5000
 */
import { z } from 'zod';

/** Standard Webhooks asks for secrets of 24 to 64 random bytes; we refuse fewer than 24. */
export const MIN_SECRET_BYTES = 24;
export const DEFAULT_TIMEOUT_MS = 5_000;
export const MIN_TIMEOUT_MS = 100;
export const MAX_TIMEOUT_MS = 60_000;

/** `whsec_` followed by canonical, padded base64. */
const WHSEC = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isStandardWebhooksSecret(value: string): boolean {
  return WHSEC.test(value) && Buffer.from(value.slice('whsec_'.length), 'base64').length >= MIN_SECRET_BYTES;
}

const secret = z.string().refine(isStandardWebhooksSecret, {
  error: `expected "whsec_" followed by the base64 of at least ${MIN_SECRET_BYTES} random bytes`,
});

export const WebhookConnectorConfig = z
  .strictObject({
    /** Secret inbound requests are signed with (Standard Webhooks). */
    inbound_secret: secret.optional(),
    /** Accept inbound requests without a signature. For a local demo only. */
    allow_unsigned: z.boolean().default(false),
    /** Where agent replies are POSTed. Absent: replies are only logged. */
    outbound_url: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
      // They would be dropped silently: the signature is what authenticates the request.
      .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: 'must not carry user:password@' })
      .optional(),
    /** Secret outbound requests are signed with; required with outbound_url. */
    outbound_secret: secret.optional(),
    /** Per delivery attempt: connecting, status line, headers and body together. */
    timeout_ms: z.number().int().min(MIN_TIMEOUT_MS).max(MAX_TIMEOUT_MS).default(DEFAULT_TIMEOUT_MS),
  })
  .superRefine((config, ctx) => {
    if (config.inbound_secret === undefined && !config.allow_unsigned) {
      ctx.addIssue({
        code: 'custom',
        path: ['inbound_secret'],
        message: 'required (or set allow_unsigned: true for a local demo)',
      });
    }
    if (config.inbound_secret !== undefined && config.allow_unsigned) {
      ctx.addIssue({
        code: 'custom',
        path: ['allow_unsigned'],
        message: 'must not be true while inbound_secret is set; choose one',
      });
    }
    if (config.outbound_url !== undefined && config.outbound_secret === undefined) {
      ctx.addIssue({ code: 'custom', path: ['outbound_secret'], message: 'required when outbound_url is set' });
    }
    if (config.outbound_url === undefined && config.outbound_secret !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['outbound_url'], message: 'required when outbound_secret is set' });
    }
  });

export type WebhookConnectorConfig = z.output<typeof WebhookConnectorConfig>;
