/**
 * The Slack connector: a Slack app's channels as conversations on the
 * platform, through Slack's Events API and Web API.
 *
 *   a channel's top-level message and its replies  ──POST /connectors/<name>/events──▶ events-route ──▶ ctx.submit
 *     their files                                  ──url_private_download────────────▶ customer-files ─▶ ctx.files (a link under the text)
 *     edits, deletions, other bots' messages       ──────────────────────────────────▶ recorded as skipped
 *     messages Slack gave up delivering            ──conversations.history/replies───▶ catch-up (poll) ─▶ the inbox
 *   a reply in the thread (chat.postMessage),      ◀── reply-writer ◀── deliver(message_created)
 *     the agent's files (the external upload flow)
 *
 * A thread is `<channel>/<root ts>`; a message `<channel>/<ts>` (slack-ids.ts).
 * Settings: `config.ts`. Who the app is: `slack-identity.ts` (auth.test).
 * What each message becomes: `message-verdict.ts`, `event-intake.ts`;
 * messages waiting for their files: `inbox.ts`.
 */
import { defineConnector, sleep, type ConnectorInstance, type PollContext } from '../../src/connector/api.ts';
import { CatchUp } from './catch-up.ts';
import { SlackConnectorConfig } from './config.ts';
import { CustomerMessages, pruneSeen } from './customer-messages.ts';
import { EventIntake } from './event-intake.ts';
import { registerEventsRoute } from './events-route.ts';
import { Inbox } from './inbox.ts';
import { pruneReplyProgress } from './reply-progress.ts';
import { ReplyWriter } from './reply-writer.ts';
import { RequestVerifier } from './request-signature.ts';
import { SlackApi } from './slack-api.ts';
import { SlackIdentity } from './slack-identity.ts';
import { SlackUsers } from './slack-users.ts';

export { SlackConnectorConfig } from './config.ts';

/** How often the poller takes up inbox entries another replica left. */
const SWEEP_MS = 5_000;
/** How often old `seen:` entries and reply records are deleted. */
const PRUNE_MS = 10 * 60_000;

export default defineConnector({
  type: 'slack',
  configSchema: SlackConnectorConfig,

  create(config, ctx): ConnectorInstance {
    const stop = new AbortController();
    const api = new SlackApi({ apiUrl: config.api_url, token: config.bot_token, timeoutMs: config.timeout_ms, logger: ctx.logger });
    const identity = new SlackIdentity(api, ctx.logger);
    const verifier = new RequestVerifier(config.signing_secret);
    const users = new SlackUsers(api, ctx.logger);
    const workspace = () => ({ url: identity.known?.url, teamId: identity.known?.team_id });
    const messages = new CustomerMessages({ ctx, api, users, limits: config.attachments, workspace });
    const inbox = new Inbox(ctx, messages);
    const intake = new EventIntake({ ctx, channels: config.channel, self: () => identity.self(), messages, inbox });
    const catchUp = new CatchUp({ api, intake, channels: config.channel, lookbackHours: config.catch_up_hours, logger: ctx.logger });
    const writer = new ReplyWriter({
      api,
      state: ctx.state,
      fetcher: ctx.attachments,
      limits: config.attachments,
      agentNames: config.agent_names,
      self: async () => {
        await identity.whoAmI(stop.signal);
        return { ...identity.self(), appId: intake.appId };
      },
    });
    registerEventsRoute(ctx, { verifier, intake, signal: stop.signal });
    const secrets = { bot_token: config.bot_token, signing_secret: config.signing_secret };
    const loops = new Set<Promise<void>>();
    const track = (loop: Promise<void>) => {
      loops.add(loop);
      void loop.finally(() => loops.delete(loop));
    };

    return {
      start() {
        track(identity.keepAsking(stop.signal));
      },

      async poll({ signal, state }: PollContext) {
        let nextCatchUp = 0;
        let nextPrune = 0;
        const polling = AbortSignal.any([signal, stop.signal]);
        while (!polling.aborted) {
          try {
            await inbox.sweep();
            if (config.catch_up_seconds > 0 && Date.now() >= nextCatchUp) {
              // The app's own messages in history are told by its ids: known first.
              await identity.whoAmI(polling);
              const waitMs = await catchUp.round(state, polling);
              nextCatchUp = Date.now() + Math.max(config.catch_up_seconds * 1000, waitMs ?? 0);
            }
            if (Date.now() >= nextPrune) {
              await pruneReplyProgress(state, Date.now());
              await pruneSeen(state, config.channel, (api.clockNow() ?? Date.now()) / 1000);
              nextPrune = Date.now() + PRUNE_MS;
            }
          } catch (err) {
            if (polling.aborted) break;
            nextCatchUp = Math.max(nextCatchUp, Date.now() + Math.max(SWEEP_MS, config.catch_up_seconds * 1000));
            ctx.logger.warn({ error: (err as Error).message }, 'slack poll round failed; tried again');
          }
          const untilCatchUp = config.catch_up_seconds > 0 ? Math.max(0, nextCatchUp - Date.now()) : SWEEP_MS;
          await sleep(Math.min(SWEEP_MS, Math.max(100, untilCatchUp)), polling);
        }
      },

      async stop() {
        stop.abort();
        await inbox.stop();
        await Promise.allSettled([...loops]);
      },

      deliver: (event, thread, context) => writer.deliver(event, thread, context),

      health() {
        const who = identity.known;
        const catching = config.catch_up_seconds > 0 ? catchUp.status : null;
        const lastError = identity.lastError ?? catching?.lastError ?? null;
        return {
          ok: who !== undefined && lastError === null,
          details: {
            api: api.host,
            team: who?.team ?? null,
            team_id: who?.team_id ?? null,
            bot_user: who?.user ?? null,
            bot_user_id: who?.user_id ?? null,
            channels: config.channel,
            events: intake.counts,
            inbox_threads_busy: inbox.busy,
            catch_up: catching === null ? 'off' : { rounds: catching.rounds, last_round_at: catching.lastRoundAt, caught_up: catching.caughtUp },
            reply_suggestions_skipped: writer.suggestionsSkipped,
            last_error: lastError,
          },
        };
      },

      reconfigure(next) {
        const changed: string[] = [];
        const fresh = next as typeof config;
        if (fresh.bot_token !== secrets.bot_token) {
          secrets.bot_token = fresh.bot_token;
          api.setToken(fresh.bot_token);
          identity.forget();
          track(identity.keepAsking(stop.signal));
          changed.push('bot_token');
        }
        if (fresh.signing_secret !== secrets.signing_secret) {
          secrets.signing_secret = fresh.signing_secret;
          verifier.setSecret(fresh.signing_secret);
          changed.push('signing_secret');
        }
        return changed;
      },
    };
  },
});
