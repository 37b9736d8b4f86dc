/**
 * The Zendesk connector's own settings keys. Strict: an unknown key is a typo
 * and refused; every problem names its key and never repeats a credential.
 *
 *   - name: support
 *     type: zendesk
 *     subdomain: acme                      # acme.zendesk.com (or url: for a host-mapped or test address)
 *     email: threadgate@acme.example       # the Zendesk admin the gateway acts as
 *     api_token: ${ZENDESK_API_TOKEN}      # one of its API tokens (sent as Basic "email/token:api_token")
 *     brand: 360001234567                  # optional: only tickets of this brand (id)
 *     group: 360007654321                  # optional: only tickets of this group (id)
 *     poll_seconds: 30
 *     replies: public                      # agent replies as public replies or as internal notes
 *     suggestions_as_internal_notes: false # reply suggestions as internal notes
 *     webhook_secret: ${ZENDESK_WEBHOOK_SECRET}   # optional: a signed webhook wakes the poller early
 *     attachments: { keep: true, max_file_bytes: 10485760, max_note_bytes: 26214400 }
 *
 * `url`, `poll_seconds`, `timeout_ms` and `attachments` are the keys every
 * ticket connector shares (../ticket/ticket-settings.ts); `subdomain` is the
 * short way to name `url`. The parsed settings carry `root`: the one address
 * of the account, from either key.
 */
import { z } from 'zod';
import { attachmentSettings, pollSeconds, systemUrl, timeoutMs } from '../ticket/ticket-settings.ts';

/** A Zendesk record id: a positive number (a string of digits, e.g. from `${BRAND_ID}`, is one too). */
const recordId = (what: string) =>
  z
    .union([z.number(), z.string().trim()], { error: `expected the ${what} id (a positive number)` })
    .transform((value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
    .refine((value): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0, { error: `expected the ${what} id (a positive number, as Admin Center shows it), not a name` });

const fields = z.strictObject({
  /** The account's subdomain: `acme` for https://acme.zendesk.com. */
  subdomain: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, { error: 'expected the Zendesk subdomain alone (the "acme" of acme.zendesk.com)' })
    .optional(),
  /** Instead of `subdomain`: the account's address (a host-mapped one, or a test's), http(s), without credentials, query or fragment. */
  url: systemUrl('Zendesk', 'email and api_token').optional(),
  /** The e-mail address of the Zendesk admin the gateway acts as. */
  email: z.email({ error: 'expected the e-mail address of the Zendesk user the gateway acts as' }),
  /** One of the account's API tokens (Admin Center → Apps and integrations → Zendesk API). */
  api_token: z.string().trim().min(1, { error: 'expected a Zendesk API token' }),
  /** Only tickets of this brand are conversations. */
  brand: recordId('brand').optional(),
  /** Only tickets of this group are conversations. */
  group: recordId('group').optional(),
  poll_seconds: pollSeconds,
  /** Whether agent replies become public replies (the requester sees them) or internal notes. */
  replies: z.enum(['public', 'internal']).default('public'),
  /** Write the platform's reply suggestions as internal notes (otherwise they are only counted). */
  suggestions_as_internal_notes: z.boolean().default(false),
  /** The signing secret of a Zendesk webhook pointed at this connector's route: a signed request wakes the poller early. */
  webhook_secret: z.string().min(8, { error: 'expected the webhook’s signing secret (as Zendesk shows it)' }).optional(),
  timeout_ms: timeoutMs,
  attachments: attachmentSettings,
});

export const ZendeskConnectorConfig = fields
  .superRefine((config, ctx) => {
    if (config.subdomain !== undefined && config.url !== undefined) ctx.addIssue({ code: 'custom', path: ['subdomain'], message: 'give either subdomain or url, not both' });
    if (config.subdomain === undefined && config.url === undefined) ctx.addIssue({ code: 'custom', path: ['subdomain'], message: 'expected subdomain (the "acme" of acme.zendesk.com) or url' });
  })
  .transform((config) => ({ ...config, root: config.url ?? `https://${config.subdomain}.zendesk.com` }));
export type ZendeskConnectorConfig = z.output<typeof ZendeskConnectorConfig>;
