/**
 * The e-mail connector's own settings keys. IMAP in (password or OAuth2
 * access token), SMTP out, the support address replies come from, and what
 * happens to a mail in the mailbox once it is safely stored.
 */
import { z } from 'zod';

const MIB = 1024 * 1024;
const host = z.string().min(1, { error: 'expected a host name' });
const port = z.number().int().min(1).max(65_535);

const OAuth2 = z
  .strictObject({
    type: z.literal('oauth2'),
    /** The mailbox to log in to (a Microsoft 365 shared mailbox: its own address, with a delegate's token). */
    user: z.string().min(1),
    /** A current XOAUTH2 access token. */
    access_token: z.string().min(1).optional(),
    /** A shell command whose standard output is a fresh access token; run before every login. */
    token_command: z.string().min(1).optional(),
    /** Built-in refresh (oauth2-tokens.ts): the provider whose token endpoint and scopes to use. */
    provider: z.enum(['google', 'microsoft', 'custom']).optional(),
    client_id: z.string().min(1).optional(),
    client_secret: z.string().min(1).optional(),
    refresh_token: z.string().min(1).optional(),
    /** The token endpoint; required for `custom`, else the provider's. */
    token_url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional(),
    /** Space-separated scopes; default: the provider's for IMAP and SMTP. */
    scope: z.string().min(1).optional(),
    /** Microsoft's directory (tenant) id or domain; default `organizations`. */
    tenant: z.string().min(1).optional(),
  })
  .superRefine((auth, ctx) => {
    const ways = [auth.access_token, auth.token_command, auth.provider].filter((v) => v !== undefined).length;
    if (ways !== 1) ctx.addIssue({ code: 'custom', path: ['provider'], message: 'give exactly one of provider (with client_id and refresh_token), access_token and token_command' });
    if (auth.provider === undefined) {
      for (const key of ['client_id', 'client_secret', 'refresh_token', 'token_url', 'scope', 'tenant'] as const) {
        if (auth[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'only with provider' });
      }
      return;
    }
    if (auth.client_id === undefined) ctx.addIssue({ code: 'custom', path: ['client_id'], message: 'required with provider' });
    if (auth.refresh_token === undefined) ctx.addIssue({ code: 'custom', path: ['refresh_token'], message: 'required with provider' });
    if (auth.provider === 'custom' && auth.token_url === undefined) ctx.addIssue({ code: 'custom', path: ['token_url'], message: 'required with provider: custom' });
    if (auth.tenant !== undefined && auth.provider !== 'microsoft') ctx.addIssue({ code: 'custom', path: ['tenant'], message: 'only with provider: microsoft' });
  });
export type OAuth2Settings = z.output<typeof OAuth2>;

export const ImapSettings = z
  .strictObject({
    host,
    port: port.default(993),
    secure: z.boolean().default(true),
    user: z.string().min(1).optional(),
    password: z.string().min(1).optional(),
    mailbox: z.string().min(1).default('INBOX'),
    auth: OAuth2.optional(),
  })
  .superRefine((imap, ctx) => {
    if (imap.auth === undefined && (imap.user === undefined || imap.password === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'give user and password, or auth: { type: oauth2, … }' });
    }
  });

export const SmtpSettings = z.strictObject({
  host,
  port: port.default(587),
  /** true: TLS from the start (465); false: STARTTLS when offered. */
  secure: z.boolean().default(false),
  user: z.string().min(1).optional(),
  password: z.string().min(1).optional(),
  /** OAuth2 (XOAUTH2): `imap` for the same grant as imap.auth, or one of its own. */
  auth: z.union([z.literal('imap'), OAuth2]).optional(),
});

const AfterImport = z.union([z.literal('seen'), z.literal('none'), z.string().regex(/^move:.+$/, { error: 'expected seen, none or move:<folder>' })]);

export const EmailConnectorConfig = z
  .strictObject({
    imap: ImapSettings,
    smtp: SmtpSettings,
    /** The support address: From of every reply, and the base of the +token Reply-To. */
    address: z.email({ error: 'expected an e-mail address' }).transform((a) => a.toLowerCase()),
    from_name: z.string().min(1).optional(),
    after_import: AfterImport.default('seen'),
    /** How often to look for new mail when the server has no IDLE. */
    poll_seconds: z.number().int().min(5).max(3_600).default(60),
    /** Longest wait between reconnect attempts. */
    reconnect_max_seconds: z.number().int().min(1).max(3_600).default(60),
    /**
     * Mailing lists whose mail is a conversation to post (e.g. the support team's
     * own list), by List-Id (`support.example.com` or `Name <support.example.com>`);
     * other list and bulk mail is skipped as TG_EMAIL_BULK.
     */
    accept_list_ids: z.array(z.string().min(1, { error: 'expected a List-Id' })).max(100).default([]),
    /** Replies go to everyone the customer's side kept on the thread (their To and Cc), in Cc; false: to the sender only. */
    reply_all: z.boolean().default(true),
    /** A copy of each reply in the mailbox's Sent folder, so the team sees the whole conversation in their mail client. */
    sent_copy: z.boolean().default(true),
    /** The folder for those copies; default: the one marked \Sent (special-use), else `Sent`, created when missing. */
    sent_folder: z.string().min(1).optional(),
    /** Files of incoming mail, kept in the gateway's file store and linked from the chat (attachment-files.ts). */
    attachments: z
      .strictObject({
        keep: z.boolean().default(true),
        max_file_bytes: z.number().int().min(1).max(100 * MIB).default(10 * MIB),
        max_mail_bytes: z.number().int().min(1).max(500 * MIB).default(25 * MIB),
      })
      .prefault({}),
  })
  .superRefine((config, ctx) => {
    if (config.smtp.auth === 'imap' && config.imap.auth === undefined) {
      ctx.addIssue({ code: 'custom', path: ['smtp', 'auth'], message: 'imap: needs imap.auth (oauth2)' });
    }
    if (config.smtp.auth !== undefined && (config.smtp.user !== undefined || config.smtp.password !== undefined)) {
      ctx.addIssue({ code: 'custom', path: ['smtp', 'auth'], message: 'give user and password, or auth, not both' });
    }
  });
export type EmailConnectorConfig = z.output<typeof EmailConnectorConfig>;
