/**
 * The Jira Service Management connector's own settings keys. Strict: an
 * unknown key is a typo and refused; every problem names its key and never
 * repeats the API token.
 *
 *   - name: desk
 *     type: jira-service-management
 *     url: https://example.atlassian.net        # the Jira Cloud site
 *     email: threadgate@example.com             # the Atlassian account the gateway acts as (an agent)
 *     api_token: ${JSM_API_TOKEN}               # that account's API token (Basic auth with the e-mail)
 *     service_desk: HELP                        # the service desk: its id, or its project key
 *     poll_seconds: 30
 *     replies: public                           # agent replies as public comments (the customer sees them) or internal ones
 *     suggestions_as_internal: false            # reply suggestions as internal comments (never shown to the customer)
 *     attachments: { keep: true, max_file_bytes: 10485760, max_note_bytes: 26214400 }
 *
 * `url`, `poll_seconds`, `timeout_ms` and `attachments` are the keys every
 * ticket connector shares (../ticket/ticket-settings.ts).
 */
import { z } from 'zod';
import { attachmentSettings, pollSeconds, systemUrl, timeoutMs } from '../ticket/ticket-settings.ts';

const deskError = 'expected the service desk id (digits) or its project key (a letter, then letters, digits or _)';

export const JsmConnectorConfig = z.strictObject({
  /** The Jira Cloud site (`https://<site>.atlassian.net`), http(s), without user:password@, query or fragment. */
  url: systemUrl('Jira', 'email and api_token'),
  /** The e-mail address of the Atlassian account the gateway acts as: an agent of the service desk. */
  email: z.string().trim().regex(/^[^\s@:]+@[^\s@:]+$/, { error: 'expected the e-mail address of the Atlassian account the gateway acts as' }),
  /** That account's API token (id.atlassian.com → Security → API tokens), sent with the e-mail as Basic auth. */
  api_token: z.string().trim().min(1, { error: 'expected an Atlassian API token of that account' }),
  /** The service desk whose requests are the conversations: its id, or its project key (`HELP`). */
  service_desk: z
    .union([z.number().int().positive(), z.string().trim().regex(/^(\d+|[A-Za-z][A-Za-z0-9_]{0,254})$/, { error: deskError })], { error: deskError })
    .transform((desk) => String(desk).toUpperCase()),
  poll_seconds: pollSeconds,
  /** Whether agent replies become public comments (shown and mailed to the customer) or internal ones (agents only). */
  replies: z.enum(['public', 'internal']).default('public'),
  /** Write the platform's reply suggestions as internal comments (otherwise they are only counted). */
  suggestions_as_internal: z.boolean().default(false),
  timeout_ms: timeoutMs,
  attachments: attachmentSettings,
});
export type JsmConnectorConfig = z.output<typeof JsmConnectorConfig>;
