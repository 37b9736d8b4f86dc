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
 *     attachments:                                # files both ways (kept-files.ts in, note-files.ts out)
 *       keep: true                                # files of tickets and notes kept and linked from the chat
 *       max_file_bytes: 10485760                  # per file, both ways (10 MiB; at most 100 MiB)
 *       max_note_bytes: 26214400                  # all files of one ticket, note or agent reply (25 MiB; at most 500 MiB)
 *
 * `attachments.keep: false` lists incoming files by name and size only (no
 * link, nothing stored); an agent's files are uploaded to Redmine either way.
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
export const DEFAULT_POLL_SECONDS = 30;
export const DEFAULT_TIMEOUT_MS = 10_000;

export const RedmineConnectorConfig = z.strictObject({
  /** The Redmine root URL, http(s), without user:password@, query or fragment. */
  url: z
    .url({ protocol: /^https?$/, error: 'expected the http(s) URL of the Redmine root' })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: 'must not carry user:password@ (the API key authenticates)' })
    .refine((url) => !/[?#]/.test(url), { error: 'must not carry a query or fragment' })
    .transform((url) => url.replace(/\/+$/, '')),
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
  /** How often Redmine is asked for changed issues. */
  poll_seconds: z.number().int().min(1).max(3_600).default(DEFAULT_POLL_SECONDS),
  /** Whether agent replies become public notes (the customer sees them) or private ones. */
  notes: z.enum(['public', 'private']).default('public'),
  /** Write the platform's reply suggestions as private notes (otherwise they are only counted). */
  suggestions_as_private_notes: z.boolean().default(false),
  /** Per request to Redmine (a file's download or upload: at least a minute). */
  timeout_ms: z.number().int().min(100).max(120_000).default(DEFAULT_TIMEOUT_MS),
  /** Files both ways: incoming ones kept in the gateway's file store and linked from the chat, an agent's uploaded with its note. */
  attachments: z
    .strictObject({
      keep: z.boolean().default(true),
      max_file_bytes: z.number().int().min(1).max(100 * MIB).default(10 * MIB),
      max_note_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
    })
    .prefault({}),
});
export type RedmineConnectorConfig = z.output<typeof RedmineConnectorConfig>;
