/**
 * What the proxy checks of a request before anything leaves, besides its
 * path and its caller: a documented query (as strings, a repeated key as a
 * list; 400 naming `query.<field>`) and a documented JSON body (read within
 * the body limit, checked against its schema, 400 naming each field). The
 * caller's bytes go on unchanged. A request without a documented JSON body
 * is not read here (no schema runs on it), and an empty query, the common
 * case, is checked once per endpoint.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { EndpointSpec } from '../../platform/endpoints/types.ts';
import { zodIssues } from '../../platform/errors.ts';
import { RequestInvalidError } from '../errors.ts';
import { ProxyDeniedError } from './denied.ts';

/** Whether the body is declared JSON (`application/json`, `application/<x>+json`). */
export function isJson(headers: IncomingHttpHeaders): boolean {
  return /^application\/(.+\+)?json\b/i.test(headers['content-type'] ?? '');
}

/** Whether the request carries a body (a non-zero Content-Length, or chunks). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['content-length'] !== undefined ? headers['content-length'] !== '0' : headers['transfer-encoding'] !== undefined;
}

/** The body read whole (within `limit`) and checked against the endpoint's schema; its bytes as they came. */
export async function checkedBody(stream: Readable | undefined, endpoint: EndpointSpec, limit: number): Promise<{ raw: Buffer; json: unknown }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream ?? []) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ProxyDeniedError(413, 'TG_BODY_TOO_LARGE', `the body is over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new RequestInvalidError([{ path: '', message: `malformed JSON: ${(err as Error).message}` }]);
  }
  const parsed = endpoint.body!.safeParse(json);
  if (!parsed.success) throw new RequestInvalidError(zodIssues(parsed.error));
  return { raw, json: parsed.data }; // the caller's bytes go on unchanged
}

/** Per endpoint, the outcome of checking an empty query (null: it passes): the same every time, so checked once. */
const emptyQueryOutcome = new WeakMap<EndpointSpec, RequestInvalidError | null>();

/** A documented query is checked as strings (a repeated key as a list); it is forwarded as given. */
export function checkQuery(query: string, endpoint: EndpointSpec): void {
  if (query === '') {
    let outcome = emptyQueryOutcome.get(endpoint);
    if (outcome === undefined) {
      const parsed = endpoint.query!.safeParse({});
      outcome = parsed.success ? null : new RequestInvalidError(zodIssues(parsed.error, 'query'));
      emptyQueryOutcome.set(endpoint, outcome);
    }
    if (outcome !== null) throw new RequestInvalidError(outcome.errors);
    return;
  }
  const values: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    const prior = values[key];
    values[key] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
  const parsed = endpoint.query!.safeParse(values);
  if (!parsed.success) throw new RequestInvalidError(zodIssues(parsed.error, 'query'));
}
