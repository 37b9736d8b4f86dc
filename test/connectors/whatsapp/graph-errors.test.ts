/**
 * What each Graph API refusal becomes, by its code first and its HTTP status
 * second: the window (131047) permanent, the rate limits waited out (our own
 * wait without Retry-After, Retry-After when given), the token permanent with
 * a hint, WhatsApp's own trouble transient — each message carrying Graph's
 * words and trace id.
 */
import { describe, expect, it } from 'vitest';
import {
  graphFailure,
  RATE_LIMIT_WAITS,
  WhatsAppRateLimitedError,
  WhatsAppRefusedError,
  WhatsAppTokenRefusedError,
  WhatsAppUnavailableError,
  WhatsAppWindowClosedError,
} from '../../../connectors/whatsapp/graph-errors.ts';

const body = (code: number, message = `(#${code}) something`, details?: string) =>
  JSON.stringify({ error: { message, type: 'OAuthException', code, ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}), fbtrace_id: 'Atrace123' } });
const failure = (status: number, text: string, retryAfter: string | null = null) => graphFailure(status, text, retryAfter, 'sending a text message');

describe('graphFailure', () => {
  it('131047 is the closed window: permanent, with Graph’s words, details and trace id', () => {
    const err = failure(400, body(131047, '(#131047) Re-engagement message', 'More than 24 hours have passed.'));
    expect(err).toBeInstanceOf(WhatsAppWindowClosedError);
    expect(err).toMatchObject({ code: 'TG_WHATSAPP_WINDOW_CLOSED', permanent: true, status: 400, graphCode: 131047 });
    expect(err.message).toBe('WhatsApp answered 400 to sending a text message: (#131047) Re-engagement message — More than 24 hours have passed. (code 131047, fbtrace_id Atrace123)');
  });

  it('the rate limits wait our own time, or as Retry-After says', () => {
    for (const [code, wait] of Object.entries(RATE_LIMIT_WAITS)) {
      expect(failure(400, body(Number(code)))).toMatchObject({ code: 'TG_WHATSAPP_RATE_LIMITED', retryAfterMs: wait });
    }
    expect(failure(400, body(130429), '7')).toMatchObject({ retryAfterMs: 7_000 });
    expect(failure(429, 'Too Many Requests')).toBeInstanceOf(WhatsAppRateLimitedError);
    expect(failure(429, 'Too Many Requests')).toMatchObject({ retryAfterMs: 60_000 });
  });

  it('a refused token is permanent and says what to renew, by 401 or by code', () => {
    for (const err of [failure(401, body(190, 'Invalid OAuth access token')), failure(400, body(190)), failure(400, body(104)), failure(401, 'Unauthorized')]) {
      expect(err).toBeInstanceOf(WhatsAppTokenRefusedError);
      expect(err.message).toContain('renew access_token');
    }
  });

  it('WhatsApp’s own trouble is transient: 5xx, codes 1, 2, 131000, 131016, and a 408', () => {
    for (const err of [failure(500, body(131000)), failure(503, 'Service Unavailable'), failure(400, body(2)), failure(400, body(131016)), failure(408, '')]) {
      expect(err).toBeInstanceOf(WhatsAppUnavailableError);
      expect((err as WhatsAppUnavailableError).code).toBe('TG_WHATSAPP_UNAVAILABLE');
    }
  });

  it('any other refusal is permanent, naming the status and code; a body that is not Graph’s is quoted', () => {
    expect(failure(400, body(100, '(#100) Invalid parameter', "Param text['body'] is required"))).toMatchObject({ code: 'TG_WHATSAPP_REFUSED', status: 400, graphCode: 100, permanent: true });
    const html = failure(404, '<html><body>Not here</body></html>');
    expect(html).toBeInstanceOf(WhatsAppRefusedError);
    expect(html.message).toBe('WhatsApp answered 404 to sending a text message: <html><body>Not here</body></html>');
  });
});
