/**
 * Field types shared by the spec 02 schemas (builder, form data, workflow
 * reporting, event listing): ISO 8601 times, query-string booleans and
 * integers, JSON objects carried in a query value, and the loose object used
 * wherever the spec says "not shown".
 *
 * Query values arrive (and leave) as strings, so the query helpers accept the
 * string form and keep a string as their output: what is sent is the schema's
 * output (see unified-messaging-client.ts).
 */
import { z } from 'zod';

/**
 * An ISO 8601 date and time, with or without an offset, any sub-second
 * precision ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00.123+02:00").
 * Spec 02 types these "date/time, ISO 8601"; a bare date is refused.
 */
export const isoDateTime = z.iso.datetime({
  offset: true,
  local: true,
  error: 'Enter a valid ISO 8601 date/time, e.g. 2024-05-01T10:00:00Z.',
});

/** A required string that is not empty (spec 02 documents no maximum lengths). */
export const requiredString = z.string().min(1, { error: 'This field may not be blank.' });

/** A positive integer in a JSON body. */
export const positiveInt = z
  .number({ error: 'A valid integer is required.' })
  .int({ error: 'A valid integer is required.' })
  .min(1, { error: 'Ensure this value is greater than or equal to 1.' });

/** A boolean in a query string: `true` or `false` (a JS boolean is accepted and sent as that text). */
export const queryBoolean = z
  .union([z.boolean(), z.enum(['true', 'false'])], { error: 'Must be true or false.' })
  .transform((v) => String(v) as 'true' | 'false');

/** An integer in a query string, sent as text. */
export const queryInteger = z
  .union([z.number().int(), z.string().regex(/^-?\d+$/)], { error: 'A valid integer is required.' })
  .transform((v) => String(v));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object, written as its text (a query value: the URL encoding is the query string's). */
export const jsonObjectText = z.string().refine(
  (text) => {
    try {
      return isPlainObject(JSON.parse(text));
    } catch {
      return false;
    }
  },
  { error: 'Must be a JSON object, e.g. {"email":"a@example.com"}.' },
);

/**
 * An object whose contents spec 02 does not show (interaction `project`,
 * `draft_data`, `flow_mode`, undocumented payloads): any keys, all kept.
 */
export const OpaqueObject = z.looseObject({});
export type OpaqueObject = z.infer<typeof OpaqueObject>;

