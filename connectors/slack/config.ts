/**
 * The Slack connector's own settings keys. Strict: an unknown key is a typo
 * and refused; every problem names its key and never repeats a credential.
 *
 *   - name: slack
 *     type: slack
 *     bot_token: ${SLACK_BOT_TOKEN}            # xoxb-…: OAuth & Permissions → Bot User OAuth Token
 *     signing_secret: ${SLACK_SIGNING_SECRET}  # Basic Information → App Credentials → Signing Secret
 *     channel: C0123456789                     # or a list: [C0123456789, G0987654321]
 *     api_url: https://slack.com/api          # the Web API's root (a test points it at a counterpart)
 *     agent_names: true                        # each reply begins with the agent's name in bold
 *     catch_up_seconds: 300                    # how often history is read for messages Slack never delivered (0: never)
 *     catch_up_hours: 72                       # how old a thread's first message may be for its replies to be caught up
 *     timeout_ms: 10000                        # per Web API request (a file's download or upload: at least a minute)
 *     attachments: { keep: true, max_file_bytes: 10485760, max_message_bytes: 26214400 }
 *
 * `attachments` has the shared names of the e-mail and ticket connectors
 * (`keep`, `max_file_bytes`); the budget of all files of one message is
 * `max_message_bytes` here (a mail's `max_mail_bytes`, a note's
 * `max_note_bytes`).
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
export const DEFAULT_API_URL = 'https://slack.com/api';

/** A conversation id as Slack writes it: C… (public channel), G… (private channel or group), D… (a direct message). */
export const CHANNEL_ID = /^[CGD][A-Z0-9]{8,}$/;

const channelId = z
  .string({ error: 'expected a Slack channel id' })
  .trim()
  .regex(CHANNEL_ID, { error: 'expected a Slack channel id (C0123ABCDEF, as the channel’s details show it at the bottom), not its name' });

const apiUrl = z
  .url({ protocol: /^https?$/, error: 'expected the http(s) URL of Slack’s Web API (https://slack.com/api)' })
  .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: 'must not carry user:password@ (the bot token is its own key)' })
  .refine((url) => !/[?#]/.test(url), { error: 'must not carry a query or fragment' })
  .transform((url) => url.replace(/\/+$/, ''));

export const SlackConnectorConfig = z.strictObject({
  /** The app's bot token; every Web API call and private file download carries it. */
  bot_token: z
    .string({ error: 'expected the bot token (xoxb-…)' })
    .trim()
    .regex(/^xoxb-[A-Za-z0-9-]+$/, { error: 'expected the Bot User OAuth Token (xoxb-…, OAuth & Permissions); a user token (xoxp-) or an app-level token (xapp-) will not do' }),
  /** The app's signing secret: every request to the events route must be signed with it. */
  signing_secret: z
    .string({ error: 'expected the app’s Signing Secret' })
    .trim()
    .regex(/^[A-Za-z0-9]{16,128}$/, { error: 'expected the app’s Signing Secret (Basic Information → App Credentials), not the verification token' }),
  /** The conversations whose messages are posted; messages elsewhere are ignored. */
  channel: z.preprocess(
    (value) => (typeof value === 'string' ? [value] : value),
    z
      .array(channelId, { error: 'expected a channel id or a list of them' })
      .min(1, { error: 'expected at least one channel id' })
      .max(100, { error: 'at most 100 channels' })
      .transform((ids) => [...new Set(ids)]),
  ),
  api_url: apiUrl.default(DEFAULT_API_URL),
  /** The agent's name in bold at the start of each reply (the message itself is the app's). */
  agent_names: z.boolean().default(true),
  /** Seconds between rounds reading channel history for messages Slack gave up delivering; 0 turns it off. */
  catch_up_seconds: z.number().int().min(0).max(86_400).default(300),
  /** Replies are caught up in threads whose first message is at most this many hours old. */
  catch_up_hours: z.number().int().min(1).max(720).default(72),
  /** Per Web API request (a file's download or upload: at least a minute). */
  timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  /** Files both ways: a customer's kept in the gateway's file store and linked, an agent's uploaded into the thread. */
  attachments: z
    .strictObject({
      keep: z.boolean().default(true),
      max_file_bytes: z.number().int().min(1).max(100 * MIB).default(10 * MIB),
      max_message_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
    })
    .prefault({}),
});
export type SlackConnectorConfig = z.output<typeof SlackConnectorConfig>;
export type FileLimits = SlackConnectorConfig['attachments'];
