/**
 * The e-mail connector: a support mailbox on the platform.
 *
 *   customer mail ──IMAP (IDLE / poll)──▶ parse, skip noise, thread ──▶ ctx.submit
 *   customer mail ◀──────────SMTP──────── Re: with threading headers ◀── deliver(message_created)
 *
 * Settings: `config.ts`. Reading the mailbox: `mailbox-watcher.ts`. One mail
 * to the bridge: `mail-intake.ts` (parsing in `parse-mail.ts`, noise in
 * `noise.ts`, threading in `threading.ts`). Replies: `smtp-sender.ts` (HTML part
 * `html-reply.ts`, Cc `reply-all.ts`), their Sent copies `sent-copies.ts`.
 */
import { defineConnector, type ConnectorInstance } from '../../src/connector/api.ts';
import { EmailConnectorConfig, type OAuth2Settings } from './config.ts';
import { oauth2AccessToken } from './imap-auth.ts';
import { MailIntake } from './mail-intake.ts';
import { MailboxWatcher } from './mailbox-watcher.ts';
import { OAuth2Tokens, reloadAuth } from './oauth2-tokens.ts';
import { SentCopies } from './sent-copies.ts';
import { SmtpSender } from './smtp-sender.ts';

export { EmailConnectorConfig } from './config.ts';

export default defineConnector({
  type: 'email',
  configSchema: EmailConnectorConfig,
  // New consent without a restart: `printf %s "$TOKEN" | threadgate secrets set <name> imap.auth.refresh_token`.
  secretKeys: ['imap.auth.refresh_token', 'imap.auth.client_secret', 'smtp.auth.refresh_token', 'smtp.auth.client_secret'],

  create(config, ctx): ConnectorInstance {
    const intake = new MailIntake(ctx, config.address, config.accept_list_ids, config.attachments);
    const sentCopies = new SentCopies(config.sent_folder, ctx.logger);
    const tokensFor = (auth: OAuth2Settings | undefined, at: string) =>
      auth?.provider === undefined ? undefined : new OAuth2Tokens(auth, { state: ctx.state, sealer: ctx.sealer, logger: ctx.logger, secrets: { store: ctx.secrets, at } });
    const imapTokens = tokensFor(config.imap.auth, 'imap.auth');
    const smtpAuth = config.smtp.auth === 'imap' ? config.imap.auth : config.smtp.auth;
    const smtpTokens = config.smtp.auth === 'imap' ? imapTokens : tokensFor(config.smtp.auth, 'smtp.auth');
    const sender = new SmtpSender(config, ctx, {
      // The mailbox's session appends it at once, on whichever replica holds the mailbox (its poll's onWake).
      onCopyQueued: () => ctx.wakePoller(),
      ...(smtpAuth
        ? { oauth2: { user: smtpAuth.user, token: (renew: boolean) => oauth2AccessToken(smtpAuth, smtpTokens, renew), expiresAt: () => smtpTokens?.expiresAt ?? 0 } }
        : {}),
    });
    let suggestions = 0;
    const watcher = new MailboxWatcher(
      config,
      ctx.state,
      ctx.logger,
      async (raw, uid) => {
        const outcome = await intake.take(raw);
        ctx.logger.debug({ uid, outcome }, 'mail handled');
      },
      {
        handleGroup: async (mails) => {
          const outcomes = await intake.takeGroup(mails.map((m) => m.raw));
          ctx.logger.debug({ first_uid: mails[0]?.uid, mails: mails.length, submitted: outcomes.filter((o) => o.kind === 'submitted').length }, 'mail group handled');
        },
        prepare: (raw) => intake.prepare(raw),
        betweenCatchUps: (client, state) => sentCopies.flush(client, state),
        ...(imapTokens ? { tokens: imapTokens } : {}),
        onGiveUp: async (raw, uid, error) => {
          const outcome = await intake.recordUnhandled(raw, error);
          ctx.logger.warn({ uid, outcome }, 'mail given up after repeated failures');
        },
      },
    );
    return {
      start() {},
      // The mailbox is read by one replica at a time; the cursor goes to the state the poll is given.
      poll: ({ signal, state, onWake }) => {
        onWake?.(() => watcher.poke());
        return watcher.run(signal, state);
      },
      async stop() {
        await watcher.close();
        sender.close();
      },
      async deliver(event, thread) {
        if (event.event_type !== 'message_created') {
          suggestions += 1;
          return { skipped: 'reply suggestions are not mailed: only agents\' messages are' };
        }
        return sender.send(event, thread);
      },
      // New OAuth2 credentials in the reloaded settings are used at once; other changes need a restart.
      reconfigure(next) {
        const { imap, smtp } = next as EmailConnectorConfig;
        const applied = reloadAuth(imapTokens, imap.auth, 'imap.auth');
        if (smtpTokens !== imapTokens && smtp.auth !== 'imap') applied.push(...reloadAuth(smtpTokens, smtp.auth, 'smtp.auth'));
        return applied;
      },
      health() {
        const s = watcher.status;
        // A refresh that fails (revoked consent, a wrong secret) shows with the provider's words, also for SMTP alone.
        const smtpOwn = smtpTokens !== imapTokens ? smtpTokens : undefined;
        return {
          ok: s.connected && (smtpOwn?.status.ok ?? true),
          details: {
            connected: s.connected,
            idle: s.idle,
            mailbox: config.imap.mailbox,
            last_uid: s.lastUid,
            last_error: s.lastError,
            last_error_at: s.lastErrorAt,
            reconnects: s.reconnects,
            reply_suggestions_recorded: suggestions,
            ...(config.sent_copy ? { sent_copies: { ...sentCopies.status } } : {}),
            ...(imapTokens ? { oauth2: { ...imapTokens.status } } : {}),
            ...(smtpOwn ? { smtp_oauth2: { ...smtpOwn.status } } : {}),
          },
        };
      },
    };
  },
});
