/**
 * The Request URL of the app's Event Subscriptions:
 * `POST /connectors/<name>/events` (https://api.slack.com/apis/events-api).
 *
 *   every request      signed by Slack (request-signature.ts), else 401 TG_SIGNATURE_INVALID, nothing done
 *   url_verification   answered 200 {"challenge": "<the challenge>"}: Slack's check when the URL is entered
 *   event_callback     the event handled (event-intake.ts), then 200 {"ok": true}
 *   app_rate_limited   logged as a warning (Slack is holding back events of this app), 200
 *   anything else      200, ignored (a type this connector does not use)
 *   a body not JSON    400 TG_REQUEST_INVALID
 *
 * Slack retries an event it got no 2xx for within 3 s, up to three times
 * (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`); a retry is handled like the
 * first delivery, which the message's own id makes harmless. A failure to
 * store answers 5xx (the gateway's error boundary), so Slack tries again.
 * Refusals are logged at info without the signature or the body.
 */
import { RouteError, type ConnectorContext, type RouteRequest, type RouteResponse } from '../../src/connector/api.ts';
import type { EventIntake } from './event-intake.ts';
import { SlackSignatureRefusedError, type RequestVerifier } from './request-signature.ts';
import { Envelope } from './slack-schemas.ts';

const KNOWN = new Set(['url_verification', 'event_callback', 'app_rate_limited']);

export function registerEventsRoute(ctx: ConnectorContext, deps: { verifier: RequestVerifier; intake: EventIntake; signal: AbortSignal }): void {
  ctx.routes.add('POST', '/events', (request) => receive(ctx, deps, request));
}

async function receive(ctx: ConnectorContext, deps: { verifier: RequestVerifier; intake: EventIntake; signal: AbortSignal }, request: RouteRequest): Promise<RouteResponse> {
  const retry = retryOf(request);
  try {
    deps.verifier.verify(request);
  } catch (err) {
    if (err instanceof SlackSignatureRefusedError) ctx.logger.info({ code: err.code, refusal: err.refusal, ...retry }, err.message);
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(request.rawBody.toString('utf8'));
  } catch (err) {
    ctx.logger.info({ code: 'TG_REQUEST_INVALID' }, 'slack request refused: the body is not JSON');
    throw new RouteError(400, 'TG_REQUEST_INVALID', `the body is not JSON: ${(err as Error).message}`);
  }
  const type = (json as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !KNOWN.has(type)) {
    ctx.logger.debug({ type: typeof type === 'string' ? type.slice(0, 64) : null }, 'slack request of a type not used: ignored');
    return { status: 200, body: { ok: true } };
  }
  const parsed = Envelope.safeParse(json);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new RouteError(400, 'TG_REQUEST_INVALID', `not an envelope of the Events API: ${errors.map((e) => `${e.path || '(body)'}: ${e.message}`).join('; ')}`, errors);
  }
  const envelope = parsed.data;
  if (envelope.type === 'url_verification') {
    ctx.logger.info('slack url_verification answered: the Request URL is verified');
    return { status: 200, body: { challenge: envelope.challenge } };
  }
  if (envelope.type === 'app_rate_limited') {
    ctx.logger.warn({ minute_rate_limited: envelope.minute_rate_limited ?? null }, 'Slack is holding back events of this app (app_rate_limited): the catch-up will read what it held back');
    return { status: 200, body: { ok: true } };
  }
  const outcome = await deps.intake.receive(envelope.event, {
    appId: envelope.api_app_id,
    signal: deps.signal,
    ...(retry.retry_num === undefined ? {} : { retryNum: retry.retry_num }),
  });
  ctx.logger.debug({ event_id: envelope.event_id?.slice(0, 64), event_type: envelope.event.type.slice(0, 64), outcome, ...retry }, 'slack event handled');
  return { status: 200, body: { ok: true } };
}

function retryOf(request: RouteRequest): { retry_num?: number; retry_reason?: string } {
  const num = Number.parseInt(request.headers['x-slack-retry-num'] ?? '', 10);
  const reason = request.headers['x-slack-retry-reason'];
  return { ...(Number.isFinite(num) ? { retry_num: num } : {}), ...(reason ? { retry_reason: reason.slice(0, 64) } : {}) };
}
