/**
 * The Request Tracker connector's own settings keys. Strict: an unknown key is
 * a typo and refused; every problem names its key and never repeats a
 * credential.
 *
 *   - name: desk
 *     type: request-tracker
 *     url: https://rt.example.com          # the RT root; REST2 is under /REST/2.0
 *     token: ${RT_TOKEN}                   # an auth token of an RT user of the gateway's own
 *     # or user: / password: for that user, where tokens are not enabled
 *     queue: General                       # name or id: its tickets are the conversations
 *     poll_seconds: 30
 *     replies: correspond                  # agent replies as correspondence (sent to the requestors) or as comments
 *     suggestions_as_comments: false       # reply suggestions as comments (never sent to the requestors)
 *     closed_statuses: [resolved, rejected, deleted]
 *     attachments: { keep: true, max_file_bytes: 10485760, max_note_bytes: 26214400 }
 *
 * `url`, `poll_seconds`, `timeout_ms` and `attachments` are the keys every
 * ticket connector shares (../ticket/ticket-settings.ts).
 */
import { z } from 'zod';
import { attachmentSettings, pollSeconds, systemUrl, timeoutMs } from '../ticket/ticket-settings.ts';

/** RT's default lifecycle: its inactive statuses. */
export const DEFAULT_CLOSED_STATUSES = ['resolved', 'rejected', 'deleted'];

const status = z.string().trim().min(1).max(64).transform((s) => s.toLowerCase());

export const RequestTrackerConnectorConfig = z
  .strictObject({
    /** The RT root URL (where its web pages are), http(s), without user:password@, query or fragment. */
    url: systemUrl('RT', 'token, or user and password,'),
    /** An auth token of the RT user the gateway acts as (RT 5: Settings → Auth Tokens), sent as `Authorization: token …`. */
    token: z.string().trim().min(1, { error: 'expected an RT auth token' }).optional(),
    /** Where tokens are not enabled: that user's name and password (HTTP basic auth). */
    user: z.string().trim().min(1, { error: 'expected the RT user name' }).optional(),
    password: z.string().min(1, { error: 'expected the RT user’s password' }).optional(),
    /** The queue whose tickets are the conversations: its name, or its id (a string of digits is an id). */
    queue: z
      .union([z.number().int().positive(), z.string().trim().min(1).max(200)])
      .transform((queue) => (typeof queue === 'string' && /^\d+$/.test(queue) ? Number(queue) : queue)),
    poll_seconds: pollSeconds,
    /** Whether agent replies become correspondence (mailed to the requestors) or comments (staff only). */
    replies: z.enum(['correspond', 'comment']).default('correspond'),
    /** Write the platform's reply suggestions as comments (otherwise they are only counted). */
    suggestions_as_comments: z.boolean().default(false),
    /** The statuses that end the conversation (a custom lifecycle's inactive ones); any other status is open. */
    closed_statuses: z.array(status).min(1).max(50).default(DEFAULT_CLOSED_STATUSES),
    timeout_ms: timeoutMs,
    attachments: attachmentSettings,
  })
  .superRefine((config, ctx) => {
    const basic = config.user !== undefined || config.password !== undefined;
    if (config.token !== undefined && basic) ctx.addIssue({ code: 'custom', path: ['token'], message: 'give either token, or user and password, not both' });
    else if (config.token === undefined && !basic) ctx.addIssue({ code: 'custom', path: ['token'], message: 'expected token (or user and password) of the RT user the gateway acts as' });
    else if (basic && config.user === undefined) ctx.addIssue({ code: 'custom', path: ['user'], message: 'expected the RT user name that goes with password' });
    else if (basic && config.password === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'expected the password that goes with user' });
  });
export type RequestTrackerConnectorConfig = z.output<typeof RequestTrackerConnectorConfig>;
