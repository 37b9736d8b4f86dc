/**
 * Settings keys every ticket connector shares, for its own strict schema:
 *
 *   url: https://desk.example.com        # the system's root (systemUrl)
 *   poll_seconds: 30                     # how often it is asked for changes
 *   timeout_ms: 10000                    # per request (a file's download or upload: at least a minute)
 *   attachments:                         # files both ways (kept-files.ts in, note-files.ts out)
 *     keep: true                         # incoming files kept and linked (false: listed by name and size)
 *     max_file_bytes: 10485760           # per file, both ways (10 MiB; at most 100 MiB)
 *     max_note_bytes: 26214400           # all files of one message or reply (25 MiB; at most 500 MiB)
 *
 * Each adapter adds its credentials and what names its queue of tickets.
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
export const DEFAULT_POLL_SECONDS = 30;
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The http(s) root of a ticket system, without credentials, query or fragment, and without a trailing slash. */
export function systemUrl(system: string, credential: string) {
  return z
    .url({ protocol: /^https?$/, error: `expected the http(s) URL of the ${system} root` })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), { error: `must not carry user:password@ (give ${credential} as its own keys)` })
    .refine((url) => !/[?#]/.test(url), { error: 'must not carry a query or fragment' })
    .transform((url) => url.replace(/\/+$/, ''));
}

/** How often the system is asked for changed tickets. */
export const pollSeconds = z.number().int().min(1).max(3_600).default(DEFAULT_POLL_SECONDS);

/** Per request to the system (a file's download or upload: at least a minute). */
export const timeoutMs = z.number().int().min(100).max(120_000).default(DEFAULT_TIMEOUT_MS);

/** Files both ways: incoming ones kept in the gateway's file store and linked from the chat, an agent's uploaded with its note. */
export const attachmentSettings = z
  .strictObject({
    keep: z.boolean().default(true),
    max_file_bytes: z.number().int().min(1).max(100 * MIB).default(10 * MIB),
    max_note_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
  })
  .prefault({});
