/**
 * The connector's two inbound routes, below `/connectors/<name>`:
 *
 *   POST /messages  {thread_id, messages: [{message_id, sender_id, sender_name?, body}], variables?, close_session?}
 *                   → 202 {accepted, duplicates, thread_id}, once every message is stored durably
 *   POST /close     {thread_id} → 202 {closing: true, thread_id}; 404 for a thread never seen
 *
 * Each request is checked in this order: signature (401), content type (415),
 * JSON and schema (400). Every refusal is logged at info with its code and
 * reason, never with the secret, the signature or the body.
 *
 * Retrying is safe: `ctx.submit` is idempotent on message_id, so a batch sent
 * again answers with its messages counted as duplicates, and closing twice
 * closes once.
 */
import {
  RouteError,
  type ConnectorContext,
  type RouteHandler,
  type RouteRequest,
  type RouteResponse,
  type SubmitMessage,
} from '../../src/connector/api.ts';
import { InboundRefusal, PostCloseBody, PostMessagesBody, readJsonBody } from './inbound-requests.ts';
import { HEADER_ID, type InboundVerifier } from './standard-webhooks.ts';

export function registerInboundRoutes(ctx: ConnectorContext, verify: InboundVerifier): void {
  ctx.routes.add('POST', '/messages', refusing(ctx, 'POST /messages', verify, (request) => postMessages(ctx, request)));
  ctx.routes.add('POST', '/close', refusing(ctx, 'POST /close', verify, (request) => postClose(ctx, request)));
}

async function postMessages(ctx: ConnectorContext, request: RouteRequest): Promise<RouteResponse> {
  const batch = readJsonBody(request, PostMessagesBody);
  const last = batch.messages.length - 1;
  let accepted = 0;
  let duplicates = 0;
  let threadId = '';
  // One at a time, in order: the platform shows them in the order they were stored.
  for (const [index, message] of batch.messages.entries()) {
    const submit: SubmitMessage = {
      threadKey: batch.thread_id,
      messageId: message.message_id,
      senderId: message.sender_id,
      body: message.body,
    };
    if (message.sender_name !== undefined) submit.senderName = message.sender_name;
    if (batch.variables !== undefined) submit.variables = batch.variables;
    if (batch.close_session === true && index === last) submit.closeSession = true;
    const result = await ctx.submit(submit);
    if (result.duplicate) duplicates += 1;
    else accepted += 1;
    threadId = result.threadId;
  }
  return { status: 202, body: { accepted, duplicates, thread_id: threadId } };
}

async function postClose(ctx: ConnectorContext, request: RouteRequest): Promise<RouteResponse> {
  const { thread_id: threadKey } = readJsonBody(request, PostCloseBody);
  const thread = await ctx.threads.get(threadKey);
  if (thread === undefined) {
    throw new InboundRefusal('TG_THREAD_NOT_FOUND', 404, 'no thread with this thread_id was ever received');
  }
  await ctx.close(threadKey);
  return { status: 202, body: { closing: true, thread_id: thread.threadId } };
}

/**
 * Verifies the signature, runs the route, and turns a refusal into its JSON
 * answer. Anything else (the store failing) propagates to the gateway, which
 * answers 5xx; messages stored before the failure count as duplicates when the
 * client sends the batch again.
 */
function refusing(
  ctx: ConnectorContext,
  route: string,
  verify: InboundVerifier,
  handle: (request: RouteRequest) => Promise<RouteResponse>,
): RouteHandler {
  return async (request) => {
    try {
      verify(request);
      return await handle(request);
    } catch (err) {
      if (!(err instanceof RouteError)) throw err;
      ctx.logger.info(
        { route, status: err.statusCode, code: err.code, webhook_id: request.headers[HEADER_ID]?.slice(0, 128) },
        `inbound request refused: ${err.message}`,
      );
      return { status: err.statusCode, body: err.toJSON() };
    }
  };
}
