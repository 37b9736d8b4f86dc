/**
 * The WhatsApp connector's own settings keys. Strict: an unknown key is a
 * typo and refused; every problem names its key and never repeats a secret.
 *
 *   - name: whatsapp
 *     type: whatsapp
 *     phone_number_id: "106540352242922"      # the business number's id (WhatsApp Manager → API Setup)
 *     access_token: ${WHATSAPP_ACCESS_TOKEN}   # a system user's token with whatsapp_business_messaging
 *     app_secret: ${WHATSAPP_APP_SECRET}       # the Meta app's secret: webhook requests are signed with it
 *     verify_token: ${WHATSAPP_VERIFY_TOKEN}   # any string of yours, given to Meta with the callback URL
 *     api_url: https://graph.facebook.com      # default
 *     api_version: v26.0                       # default
 *     template: { name: reopen_conversation, language: en_US }   # optional: sent outside the 24-hour window
 *     timeout_ms: 10000
 *     attachments: { keep: true, max_file_bytes: 10485760, max_message_bytes: 26214400 }
 *
 * `attachments` has the shared names of the e-mail and ticket connectors:
 * `keep` (a customer's media kept and linked, or only named), `max_file_bytes`
 * (per file, both ways) and `max_message_bytes` (all files of one message: an
 * agent's reply's files together; a customer's message has one).
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
export const DEFAULT_API_URL = 'https://graph.facebook.com';
/** The Graph API version asked for unless `api_version` says otherwise (docs/decisions/whatsapp-connector.md). */
export const DEFAULT_API_VERSION = 'v26.0';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** A Graph object id: digits; a YAML number is taken when it is exact (an id past 2^53 must be quoted). */
const graphId = (what: string) =>
  z
    .union([z.string().trim(), z.number()], { error: `expected the ${what} (digits, as WhatsApp Manager shows it)` })
    .refine((v) => (typeof v === 'number' ? Number.isSafeInteger(v) && v > 0 : /^\d{1,32}$/.test(v)), {
      error: `expected the ${what}: digits only (quote a long one in YAML, "106540352242922", so it is not rounded)`,
    })
    .transform(String);

const secret = (what: string, min: number) => z.string({ error: `expected ${what}` }).trim().min(min, { error: `expected ${what} (at least ${min} characters)` });

const template = z.strictObject({
  /** The approved template's name, as WhatsApp Manager lists it. */
  name: z.string().regex(/^[a-z0-9_]{1,512}$/, { error: 'expected the template’s name: lower-case letters, digits and underscores' }),
  /** The language (locale) of its approved translation: `en`, `en_US`, `pt_BR`. */
  language: z.string().regex(/^[a-z]{2,3}(?:_[A-Z]{2,4})?$/, { error: 'expected a template language code such as en or en_US' }),
});

export const WhatsAppConnectorConfig = z.strictObject({
  /** The id of the business phone number the gateway sends from and answers for. */
  phone_number_id: graphId('phone number id'),
  /** A system user's access token with the whatsapp_business_messaging permission (sent as Bearer, never logged). */
  access_token: secret('a WhatsApp access token', 16),
  /** The Meta app's secret: each webhook request's X-Hub-Signature-256 is checked with it. */
  app_secret: secret('the Meta app’s secret (App settings → Basic)', 16),
  /** Any string of yours; Meta repeats it in the callback URL's verification request. */
  verify_token: secret('a verify token of your choosing', 8),
  /** Where the Graph API is: its https origin (a test's address in tests), without credentials, query or fragment. */
  api_url: z
    .url({ protocol: /^https?$/, error: 'expected the http(s) URL of the Graph API' })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: 'must not carry user:password@ (the token is its own key)' })
    .refine((url) => !/[?#]/.test(url), { error: 'must not carry a query or fragment' })
    .transform((url) => url.replace(/\/+$/, ''))
    .default(DEFAULT_API_URL),
  /** The Graph API version of every call. */
  api_version: z.string().regex(/^v\d{1,3}\.\d$/, { error: 'expected a Graph API version such as v26.0' }).default(DEFAULT_API_VERSION),
  /** A template with no variables, sent in place of a reply outside the 24-hour customer service window. */
  template: template.optional(),
  /** Per request to the Graph API (a file's download or upload: at least a minute). */
  timeout_ms: z.number().int().min(100).max(120_000).default(DEFAULT_TIMEOUT_MS),
  attachments: z
    .strictObject({
      keep: z.boolean().default(true),
      max_file_bytes: z.number().int().min(1).max(100 * MIB).default(10 * MIB),
      max_message_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
    })
    .prefault({}),
});
export type WhatsAppConnectorConfig = z.output<typeof WhatsAppConnectorConfig>;
