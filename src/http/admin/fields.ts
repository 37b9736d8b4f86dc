/**
 * The building blocks of the admin API's inputs and answers: ids, whole
 * numbers, status lists (`dead,failed`), times (`2h` ago or ISO) — with the
 * same rules and wording as the CLI's filters — and the shared answers (an
 * error body, a queued job, a page with its `next_before` cursor).
 */
import { z } from 'zod';
import { component } from './route-table.ts';
import { timeFrom } from '../../base/time-spans.ts';

export const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1_000;

/** A whole number in a path or query string, `min` to `max`, with one plain message. */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  return z
    .string()
    .transform((value, ctx) => {
      const n = Number(value);
      if (/^\d+$/.test(value) && n >= min && n <= max) return n;
      ctx.issues.push({ code: 'custom', input: value, message: `must be a whole number ${range}, got "${value}"` });
      return z.NEVER;
    })
    .meta({ type: 'integer', minimum: min, ...(max === Number.MAX_SAFE_INTEGER ? {} : { maximum: max }) });
}

export const IdParams = z.strictObject({ id: wholeNumber(1).meta({ description: 'The record id.' }) });

/** `dead,failed` (or the parameter repeated, or a JSON array) → the statuses, each one checked. */
export function statusList<S extends string>(allowed: readonly S[]) {
  return z
    .union([z.string(), z.array(z.string())], {
      error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${allowed.join(', ')}, comma-separated, or a list of them`),
    })
    .transform((given, ctx) => {
      const list = [given].flat().flatMap((s) => s.split(',')).map((s) => s.trim()).filter((s) => s !== '');
      const bad = list.find((s) => !allowed.includes(s as S));
      if (bad === undefined) return list as S[];
      ctx.issues.push({ code: 'custom', input: given, message: `must be one of ${allowed.join(', ')}, got "${bad}"` });
      return z.NEVER;
    })
    .meta({
      description: `One or more of ${allowed.join(', ')}: comma-separated, the parameter repeated, or (in a body) a list.`,
      anyOf: [
        { type: 'string', examples: [allowed.slice(-2).join(',')] },
        { type: 'array', items: { type: 'string', enum: [...allowed] } },
      ],
    });
}


export function timeParam(description: string) {
  return z
    .string()
    .transform((value, ctx) => {
      const ms = timeFrom(value);
      if (ms !== undefined) return ms;
      ctx.issues.push({ code: 'custom', input: value, message: `must be a duration ago (2h, 30m, 7d) or an ISO time, got "${value}"` });
      return z.NEVER;
    })
    .meta({ description, type: 'string', examples: ['2h', '2026-01-31T00:00:00Z'] });
}

/** The `status` of a bulk retry: required, and only `dead` (what is not dead is not retried). */
export const deadStatus = statusList(['dead'] as const).refine((s) => s.length > 0, { error: 'name the status: dead' });

export const dryRun = z.boolean().default(false).meta({ description: 'Only count the matches; queue nothing.' });

/** An optional non-empty text filter. */
export const textFilter = (description: string) => z.string().min(1, { error: 'must not be empty' }).meta({ description }).optional();

export const pageParams = {
  limit: wholeNumber(1, MAX_LIMIT).meta({ description: `Page size (default ${DEFAULT_LIMIT}).` }).optional(),
  before: wholeNumber(1).meta({ description: 'Only records with a smaller id: the `next_before` of the previous page.' }).optional(),
};

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const IsoTime = z.iso.datetime().meta({ description: 'An ISO 8601 time (UTC).' });

export const ErrorBody = component(
  'ErrorBody',
  z.object({
    code: z.string().meta({ description: 'A stable TG_* code.' }),
    message: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional().meta({ description: 'The fields a 400 refuses, each named.' }),
  }),
);

export const JobQueued = component('JobQueued', z.object({ job_id: z.number().int().meta({ description: 'The id of the job queued.' }) }));

/** A page of `item`, newest first, with the cursor of the next page (null on the last one). */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    results: z.array(item),
    next_before: z.number().int().nullable().meta({ description: 'Pass as `before` for the next page; null when there is none.' }),
  });
}

/**
 * The page's answer: `next_before` is the last id when at least one more
 * record matches below it (`more` looks for it), else null.
 */
export async function toPage<R extends { id: number }, V>(rows: R[], limit: number, more: (before: number) => Promise<boolean>, view: (row: R) => V) {
  const last = rows[rows.length - 1];
  const next = rows.length === limit && last !== undefined && (await more(last.id)) ? last.id : null;
  return { results: rows.map(view), next_before: next };
}

/** A stored body as JSON when it parses, else the text as received. */
export function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
