/**
 * Reading a platform error body into one short `detail` and a flat map of
 * field errors. Three shapes occur:
 *
 * - `{"detail": "..."}`: every error of the platform's own views;
 * - `{"detail": "Invalid payload.", "errors": {"messages.0.body": ["..."]}}`:
 *   the sandbox's 400;
 * - `{"field": ["msg"], "messages": [{"body": ["msg"]}]}` or `["msg"]`: a
 *   serializer's validation errors as a real platform may send them.
 *
 * Anything else (an HTML page from a proxy, an empty body) becomes a short
 * text excerpt or the status text.
 */
import { STATUS_CODES } from '../base/builtins.ts';

export const MAX_DETAIL_CHARS = 300;
export const MAX_BODY_CHARS = 4096;

export interface ErrorBodySummary {
  /** The body's `detail`, else a summary of the field errors, else an excerpt. */
  detail: string;
  /** Field path (`messages.0.body`, `non_field_errors`) → messages. */
  fieldErrors: Record<string, string[]>;
}

export function describeErrorBody(status: number, body: unknown): ErrorBodySummary {
  const fieldErrors: Record<string, string[]> = {};
  if (isRecord(body)) {
    const { detail, errors, ...rest } = body;
    if (isRecord(errors)) collect(errors, '', fieldErrors);
    else if (errors !== undefined) collect({ errors }, '', fieldErrors);
    if (typeof detail !== 'string') collect(detail === undefined ? rest : { ...rest, detail }, '', fieldErrors);
    const text = typeof detail === 'string' ? detail : summarize(fieldErrors);
    return { detail: clip(text || statusText(status)), fieldErrors };
  }
  if (Array.isArray(body)) {
    collect({ non_field_errors: body }, '', fieldErrors);
    return { detail: clip(summarize(fieldErrors) || statusText(status)), fieldErrors };
  }
  const text = typeof body === 'string' ? body.replace(/\s+/g, ' ').trim() : '';
  return { detail: clip(text || statusText(status)), fieldErrors };
}

/** One line per field: `a: m1`, `b.0.c: m2 m3`; errors of the whole body without a path. */
export function fieldLines(fieldErrors: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(fieldErrors).map(([path, messages]) => (path === '' ? messages.join(' ') : `${path}: ${messages.join(' ')}`));
}

/** `a: m1; b.0.c: m2` — what a log line or an error message shows. */
export function summarize(fieldErrors: Record<string, string[]>): string {
  return clip(fieldLines(fieldErrors).join('; '));
}

/** The body kept on an error: parsed JSON when small, else a clipped text. */
export function keepBody(text: string, parsed: unknown): unknown {
  if (text.length <= MAX_BODY_CHARS) return parsed;
  return `${text.slice(0, MAX_BODY_CHARS)}… (${text.length} chars)`;
}

function collect(value: unknown, path: string, out: Record<string, string[]>): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    (out[path] ??= []).push(String(value));
  } else if (Array.isArray(value)) {
    // `["msg", "msg"]` is a list of messages; `[{...}, {}]` is a list of nested objects.
    value.forEach((item, i) => collect(item, isRecord(item) || Array.isArray(item) ? join(path, i) : path, out));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) collect(item, join(path, key), out);
  }
}

function join(path: string, key: string | number): string {
  return path === '' ? String(key) : `${path}.${key}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function statusText(status: number): string {
  return STATUS_CODES[status] ?? `HTTP ${status}`;
}

function clip(text: string): string {
  return text.length <= MAX_DETAIL_CHARS ? text : `${text.slice(0, MAX_DETAIL_CHARS - 1)}…`;
}
