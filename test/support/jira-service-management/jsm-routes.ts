/**
 * What a route of the Jira Service Management counterpart is given and
 * answers, and the checks every route shares: a JSON body read strictly
 * (the reference's request schemas have `additionalProperties: false`, and
 * Jira's JSON reader refuses an unknown field with 400), paging parameters
 * (`start`, `limit`; at most `maxLimit`), and a multi-value `expand`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { View } from './jsm-dto.ts';
import type { JsmGate } from './jsm-gate.ts';
import type { JsmStore, JsmUser } from './jsm-store.ts';

export interface Knobs {
  /** Items per embedded (expanded) page of a request. */
  expandPage: number;
  /** The largest `limit` of a Service Management list. */
  maxLimit: number;
  /** The most requests one search page holds, whatever `maxResults` asks (the reference: at most 5000, fewer with many fields). */
  searchPageCap: number;
}

export interface Call {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: Buffer;
  user: JsmUser;
  view: View;
  store: JsmStore;
  gate: JsmGate;
  knobs: Knobs;
}

export interface Answer {
  status: number;
  body?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

export interface Route {
  method: string;
  pattern: RegExp;
  handle(call: Call, match: RegExpExecArray): Answer | Promise<Answer>;
}

/** A refusal a route throws: answered as it is. */
export class Refused extends Error {
  readonly answer: Answer;
  constructor(answer: Answer) {
    super(`refused with ${answer.status}`);
    this.answer = answer;
  }
}

/** The JSON body as an object with only `allowed` keys; `refuse` makes the error body of the API in question. */
export function strictBody(call: Call, allowed: readonly string[], refuse: (message: string) => unknown): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.body.toString('utf8'));
  } catch {
    throw new Refused({ status: 400, body: refuse('Unexpected character in the JSON body: the request body is not valid JSON') });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Refused({ status: 400, body: refuse('The request body must be a JSON object') });
  for (const key of Object.keys(parsed)) {
    if (!allowed.includes(key)) throw new Refused({ status: 400, body: refuse(`Unrecognized field "${key}" (not marked as ignorable; known fields: ${allowed.join(', ')})`) });
  }
  return parsed as Record<string, unknown>;
}

/** `start` and `limit` of a Service Management list (default 0 and 50; `limit` at most `maxLimit`). */
export function paging(call: Call): { start: number; limit: number } {
  const number = (name: string, fallback: number) => {
    const raw = call.url.searchParams.get(name);
    const n = raw === null ? fallback : Number(raw);
    return Number.isInteger(n) && n >= 0 ? n : fallback;
  };
  return { start: number('start', 0), limit: Math.max(1, Math.min(number('limit', 50), call.knobs.maxLimit)) };
}

/** Every value of a multi-value parameter, repeated or comma-separated. */
export function multi(call: Call, name: string): Set<string> {
  return new Set(call.url.searchParams.getAll(name).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean));
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, body, headers });
