/**
 * Slack's answers as the gateway's errors, each a class with a stable code.
 * Slack answers a refusal with HTTP 200 and `{"ok": false, "error": "<word>"}`;
 * its word is kept in every message (it is what Slack's method pages list).
 *
 *   not_in_channel                                   SlackNotInChannelError      TG_SLACK_NOT_IN_CHANNEL     dead-letters
 *   channel_not_found                                SlackChannelNotFoundError   TG_SLACK_CHANNEL_NOT_FOUND  dead-letters
 *   is_archived                                      SlackChannelArchivedError   TG_SLACK_CHANNEL_ARCHIVED   dead-letters
 *   invalid_auth, not_authed, account_inactive,      SlackAuthRefusedError       TG_SLACK_AUTH_REFUSED       dead-letters
 *     token_revoked, token_expired
 *   any other word but the transient ones            SlackRefusedError           TG_SLACK_REFUSED            dead-letters
 *   HTTP 429 with Retry-After                        SlackRateLimitedError       TG_SLACK_RATE_LIMITED       waits as asked
 *   5xx, no answer, fatal_error, internal_error,     SlackUnavailableError       TG_SLACK_UNAVAILABLE        retried
 *     service_unavailable, request_timeout, …
 *
 * Messages name the method and Slack's word, never the token.
 */
import { PermanentDeliveryError, RetryLaterError, TransientDeliveryError } from '../../src/connector/api.ts';

/** Words of an `ok: false` answer that may pass on their own: the call is tried again. */
const TRANSIENT = new Set(['ratelimited', 'rate_limited', 'fatal_error', 'internal_error', 'service_unavailable', 'request_timeout', 'team_added_to_org', 'org_login_required']);
const AUTH = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);

const HINTS: Record<string, string> = {
  not_in_channel: 'the bot is not a member of the channel: invite it there (/invite @your-app)',
  channel_not_found: 'no such channel, or a private one the bot is not in',
  is_archived: 'the channel is archived',
  invalid_auth: 'the bot token was refused: give the app’s current Bot User OAuth Token',
  not_authed: 'no bot token was sent',
  account_inactive: 'the bot token belongs to a deleted user or workspace',
  token_revoked: 'the bot token was revoked, or the app was removed from the workspace: reinstall it',
  token_expired: 'the bot token expired (token rotation is on: turn it off, or give a fresh token)',
  missing_scope: 'the app lacks a scope: add it under OAuth & Permissions and reinstall',
  msg_too_long: 'the message text is too long',
  no_text: 'the message has no text',
  restricted_action: 'a workspace setting keeps the app from posting here',
};

/** Slack refused the call for good: the channel, the token or the request is wrong. */
export class SlackRefusedError extends PermanentDeliveryError {
  override readonly code: string = 'TG_SLACK_REFUSED';
  /** Slack's own word (`not_in_channel`). */
  readonly slackError: string;
  readonly method: string;

  constructor(method: string, slackError: string, detail?: string) {
    const hint = HINTS[slackError];
    super(`Slack refused ${method}: ${slackError}${hint ? ` (${hint})` : ''}${detail ? ` — ${detail}` : ''}`);
    this.method = method;
    this.slackError = slackError;
  }
}

export class SlackNotInChannelError extends SlackRefusedError {
  override readonly code = 'TG_SLACK_NOT_IN_CHANNEL';
}

export class SlackChannelNotFoundError extends SlackRefusedError {
  override readonly code = 'TG_SLACK_CHANNEL_NOT_FOUND';
}

export class SlackChannelArchivedError extends SlackRefusedError {
  override readonly code = 'TG_SLACK_CHANNEL_ARCHIVED';
}

/** The bot token is not (or no longer) good: every call will be refused until it is replaced. */
export class SlackAuthRefusedError extends SlackRefusedError {
  override readonly code = 'TG_SLACK_AUTH_REFUSED';
}

/** Slack answered 429: its Retry-After is waited out (by the job queue, or the loop that called). */
export class SlackRateLimitedError extends RetryLaterError {
  override readonly code = 'TG_SLACK_RATE_LIMITED';
}

/** No answer, a 5xx, or a word of Slack's that may pass: tried again with backoff. */
export class SlackUnavailableError extends TransientDeliveryError {
  override readonly code = 'TG_SLACK_UNAVAILABLE';
  readonly status: number | undefined;

  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/** A reply for a thread the gateway has no record of, or whose key is not a Slack thread's. */
export class SlackThreadUnknownError extends PermanentDeliveryError {
  override readonly code = 'TG_SLACK_THREAD_UNKNOWN';
}

/** A customer's file Slack does not hand out (deleted, external, not visible to the bot, not on Slack's file host). */
export class SlackFileUnavailableError extends PermanentDeliveryError {
  override readonly code = 'TG_SLACK_FILE_UNAVAILABLE';
}

/** A customer's file larger than the limit, by its listed size or as it arrived. */
export class SlackFileTooLargeError extends PermanentDeliveryError {
  override readonly code = 'TG_SLACK_FILE_TOO_LARGE';
}

/** The error an `ok: false` answer of `method` is; `detail` holds what else Slack said (`needed`, warnings). */
export function slackErrorFor(method: string, word: string, detail?: string): SlackRefusedError | SlackUnavailableError {
  if (TRANSIENT.has(word)) return new SlackUnavailableError(`Slack answered ${method} with ${word}${detail ? ` — ${detail}` : ''}`);
  if (AUTH.has(word)) return new SlackAuthRefusedError(method, word, detail);
  if (word === 'not_in_channel') return new SlackNotInChannelError(method, word, detail);
  if (word === 'channel_not_found' || word === 'invalid_channel') return new SlackChannelNotFoundError(method, word, detail);
  if (word === 'is_archived') return new SlackChannelArchivedError(method, word, detail);
  return new SlackRefusedError(method, word, detail);
}
