/**
 * What makes a `SubmitMessage` acceptable: the bridge checks every message
 * with these rules before anything is written, and the author kit's
 * recording context (`threadgate/testing`) checks with the same ones, so a
 * connector's tests refuse what the gateway would.
 */
import { ThreadgateError } from '../base/errors.ts';

/** Keys and ids (`threadKey`, `messageId`, `senderId`) are at most this long. */
export const MAX_SUBMIT_KEY = 2_000;
/** A message's `body` is at most this long. */
export const MAX_SUBMIT_BODY = 1_000_000;

/** A thread key or message the connector handed over cannot be stored. */
export class SubmitInvalidError extends ThreadgateError {
  readonly code = 'TG_SUBMIT_INVALID';
  override readonly statusCode = 400;
  readonly field: string;
  /** In `submitAll`: the position of the refused message in the call. */
  index: number | undefined;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** The fields of a `SubmitMessage` (api.ts) the rules read, as anything a connector may hand over. */
export interface CheckedSubmit {
  threadKey: unknown;
  messageId: unknown;
  senderId: unknown;
  body: unknown;
  senderType?: unknown;
  variables?: Readonly<Record<string, unknown>> | undefined;
}

/** Throws `SubmitInvalidError` naming the first field of `m` that breaks a rule. */
export function checkSubmitMessage(m: CheckedSubmit): void {
  const text = (field: 'threadKey' | 'messageId' | 'senderId' | 'body', max: number) => {
    const value = m[field];
    if (typeof value !== 'string' || value.trim() === '') throw new SubmitInvalidError(field, 'must be a non-blank string');
    if (value.length > max) throw new SubmitInvalidError(field, `must have at most ${max} characters`);
  };
  text('threadKey', MAX_SUBMIT_KEY);
  text('messageId', MAX_SUBMIT_KEY);
  text('senderId', MAX_SUBMIT_KEY);
  text('body', MAX_SUBMIT_BODY);
  if (m.senderType !== undefined && m.senderType !== 'visitor' && m.senderType !== 'user') {
    throw new SubmitInvalidError('senderType', 'must be "visitor" or "user"');
  }
  for (const [key, value] of Object.entries(m.variables ?? {})) {
    if (value !== null && typeof value !== 'string') throw new SubmitInvalidError(`variables.${key}`, 'must be a string or null');
  }
}

/** `checkSubmitMessage` for each message of a `submitAll`, the refused one's position on the error. */
export function checkSubmitMessages(messages: readonly CheckedSubmit[]): void {
  for (const [index, message] of messages.entries()) {
    try {
      checkSubmitMessage(message);
    } catch (err) {
      if (err instanceof SubmitInvalidError) err.index = index;
      throw err;
    }
  }
}
