/**
 * Redmine's REST API over HTTP (../ticket/ticket-http.ts): the API key in the
 * `X-Redmine-API-Key` header, Redmine's `{"errors": [...]}` as its words, and
 * its file upload (`POST /uploads.json?filename=…` with the raw bytes).
 */
import { TicketHttp, type TicketResponse } from '../ticket/ticket-http.ts';

export type RedmineResponse = TicketResponse;

const ANSWER_MAX = 300;

export class RedmineHttp extends TicketHttp {
  constructor(url: string, apiKey: string, timeoutMs: number) {
    super({ system: 'Redmine', url, headers: { 'x-redmine-api-key': apiKey }, credential: 'the API key', timeoutMs, answerOf, hint: describe });
  }

  async put(path: string, body: unknown, signal: AbortSignal): Promise<RedmineResponse> {
    return this.send('PUT', path, { json: body }, signal);
  }

  /** `POST /uploads.json?filename=…` with the raw bytes; Redmine answers `{ upload: { token } }`. */
  async upload(filename: string, content: Buffer, signal: AbortSignal): Promise<RedmineResponse> {
    return this.send('POST', '/uploads.json', { query: { filename }, raw: content }, signal);
  }
}

function describe(status: number): string {
  if (status === 401) return ' (the API key was refused)';
  if (status === 403) return ' (forbidden: is the REST API enabled, and may this user do that?)';
  if (status === 404) return ' (not found, or not visible to the API key’s user)';
  if (status === 422) return ' (refused as invalid)';
  if (status >= 300 && status <= 399) return ' (a redirect: is the url the Redmine root, with the right scheme?)';
  return '';
}

/** Redmine's `{"errors": [...]}` joined; undefined for another body (its start is shown instead). */
function answerOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(parsed.errors)) return parsed.errors.map(String).join('; ').slice(0, ANSWER_MAX);
  } catch {
    // not JSON
  }
  return undefined;
}
