/**
 * The Zammad connector's own settings keys. Strict: an unknown key is a typo
 * and refused; every problem names its key and never repeats the token.
 *
 *   - name: desk
 *     type: zammad
 *     url: https://zammad.example.com       # the Zammad root; the REST API is under /api/v1
 *     token: ${ZAMMAD_TOKEN}                # an access token of a Zammad agent of the gateway's own
 *     group: Support                        # the group whose tickets are the conversations (its name)
 *     poll_seconds: 30
 *     replies: email                        # agent replies as public articles of type email (mailed) or note
 *     suggestions_as_internal_notes: false  # reply suggestions as internal notes
 *     search_overlap_seconds: 300           # how far each search reaches back, for changes the index took late
 *     webhook_secret: ${ZAMMAD_WEBHOOK_TOKEN}   # optional: a trigger's signed webhook wakes the poller early
 *     attachments: { keep: true, max_file_bytes: 10485760, max_note_bytes: 26214400 }
 *
 * `url`, `poll_seconds`, `timeout_ms` and `attachments` are the keys every
 * ticket connector shares (../ticket/ticket-settings.ts).
 */
import { z } from 'zod';
import { attachmentSettings, pollSeconds, systemUrl, timeoutMs } from '../ticket/ticket-settings.ts';

export const DEFAULT_SEARCH_OVERLAP_SECONDS = 300;

export const ZammadConnectorConfig = z.strictObject({
  /** The Zammad root URL (where its web app is), http(s), without user:password@, query or fragment. */
  url: systemUrl('Zammad', 'token'),
  /** An access token of the Zammad agent the gateway acts as (Profile → Token Access), sent as `Authorization: Token token=…`. */
  token: z
    .string({ error: 'expected the access token of the Zammad user the gateway acts as' })
    .trim()
    .min(1, { error: 'expected the access token of the Zammad user the gateway acts as' })
    .refine((token) => !/\s/.test(token), { error: 'must not contain white space (give the token alone, without "Token token=")' }),
  /** The group whose tickets are the conversations, by its name as Zammad shows it. */
  group: z
    .string({ error: 'expected the name of the Zammad group whose tickets are the conversations' })
    .trim()
    .min(1, { error: 'expected the name of the Zammad group whose tickets are the conversations' })
    .max(160, { error: 'expected a group name of at most 160 characters' }),
  poll_seconds: pollSeconds,
  /** Agent replies as public articles: `email` (Zammad mails them to the customer) or `note` (shown in the customer's web view only). */
  replies: z.enum(['email', 'note'], { error: 'expected email or note' }).default('email'),
  /** Write the platform's reply suggestions as internal notes (otherwise they are only counted). */
  suggestions_as_internal_notes: z.boolean().default(false),
  /**
   * How far before the last search each search starts again: Zammad's ticket
   * search reads its Elasticsearch index, which takes a change a little after
   * it committed. Larger than the longest indexing delay expected; a ticket
   * listed again unchanged costs nothing but its listing.
   */
  search_overlap_seconds: z
    .number({ error: 'expected a number of seconds' })
    .int({ error: 'expected a whole number of seconds' })
    .min(10, { error: 'expected at least 10 seconds: the index takes some seconds to take a change' })
    .max(86_400, { error: 'expected at most 86400 seconds (a day)' })
    .default(DEFAULT_SEARCH_OVERLAP_SECONDS),
  /** The "HMAC SHA1 Signature Token" of a Zammad webhook pointed at this connector's route: a signed request wakes the poller early. */
  webhook_secret: z.string().min(8, { error: 'expected the webhook’s HMAC SHA1 signature token (at least 8 characters)' }).optional(),
  timeout_ms: timeoutMs,
  attachments: attachmentSettings,
});
export type ZammadConnectorConfig = z.output<typeof ZammadConnectorConfig>;
