/**
 * The Redmine connector's own settings keys. Strict: an unknown key is a typo
 * and refused; every problem names its key and never repeats the API key.
 *
 *   - name: helpdesk
 *     type: redmine
 *     url: https://redmine.example.com          # the Redmine root (a sub-path is fine)
 *     api_key: ${REDMINE_API_KEY}                 # of a Redmine user of the gateway's own (its notes are never posted)
 *     project: support                            # identifier of the project whose issues are tickets
 *     tracker: Support                            # optional: only issues of this tracker (name or id)
 *     poll_seconds: 30
 *     notes: public                               # agent replies as public or private notes
 *     suggestions_as_private_notes: false         # reply suggestions as private notes
 *     attachments: { keep: true, max_file_bytes: 10485760, max_note_bytes: 26214400 }
 *
 * `url`, `poll_seconds`, `timeout_ms` and `attachments` are the keys every
 * ticket connector shares (../ticket/ticket-settings.ts).
 */
import { z } from 'zod';
import { attachmentSettings, pollSeconds, systemUrl, timeoutMs } from '../ticket/ticket-settings.ts';

export const RedmineConnectorConfig = z.strictObject({
  /** The Redmine root URL, http(s), without user:password@, query or fragment. */
  url: systemUrl('Redmine', 'api_key'),
  /** The API key of the Redmine user the gateway acts as (My account → API access key). */
  api_key: z.string().trim().min(1, { error: 'expected the Redmine API key' }),
  /** The identifier of the project (as in its URL), not its display name. */
  project: z.string().regex(/^(?!\d+$)[a-z0-9_-]{1,100}$/, { error: 'expected a project identifier (lower-case letters, digits, - and _; not digits only)' }),
  /** Only issues of this tracker, by name or id; a string of digits (e.g. from `${TRACKER}`) is an id. */
  tracker: z
    .union([z.number().int().positive(), z.string().trim().min(1)])
    .transform((tracker) => (typeof tracker === 'string' && /^\d+$/.test(tracker) ? Number(tracker) : tracker))
    .refine((tracker) => tracker !== 0, { error: 'expected a tracker name or a positive id' })
    .optional(),
  poll_seconds: pollSeconds,
  /** Whether agent replies become public notes (the customer sees them) or private ones. */
  notes: z.enum(['public', 'private']).default('public'),
  /** Write the platform's reply suggestions as private notes (otherwise they are only counted). */
  suggestions_as_private_notes: z.boolean().default(false),
  timeout_ms: timeoutMs,
  attachments: attachmentSettings,
});
export type RedmineConnectorConfig = z.output<typeof RedmineConnectorConfig>;
