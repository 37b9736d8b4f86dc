/**
 * Form data of interactions (spec 02, "Form submission" and "Form data"):
 * what visitors submitted through interaction forms, the filters of the list,
 * count and CSV export, and the count answer.
 *
 * The list and count take their filters as query values; the CSV export takes
 * the same names in a JSON body, plus the access `token`.
 */
import { z } from 'zod';
import { isoDateTime, jsonObjectText, OpaqueObject, queryBoolean, requiredString } from './request-fields.ts';

// ─── Resource ───────────────────────────────────────────────────────────────

/**
 * A `formdata` value: checkbox boolean (true if selected); radio button,
 * select and text input string. Keys are the input names present when the
 * visitor submitted, so they may differ between submissions.
 */
export const FormDataValue = z.union([z.boolean(), z.string()]);

export const FormSubmission = z.looseObject({
  id: z.number().int(),
  timestamp: z.string(),
  projectName: z.string(),
  visitorId: z.string(),
  /** Always an empty string (spec 02). */
  roomId: z.string(),
  formdata: z.record(z.string(), FormDataValue),
  /** Name of the element that triggered the submit. */
  triggerName: z.string(),
  /** Names of the elements clicked before the submit. */
  clickHistory: z.array(z.string()),
  /** Where the interaction was shown and submitted. */
  url: z.string(),
});
export type FormSubmission = z.infer<typeof FormSubmission>;

/**
 * GET …/forms/data. The wrapper shape is not shown in spec 02: a bare array of
 * submissions is read as such, anything else as a loose object (all keys kept).
 */
export const FormSubmissionList = z.union([z.array(FormSubmission), OpaqueObject]);
export type FormSubmissionList = z.infer<typeof FormSubmissionList>;

/** GET …/forms/count. */
export const FormSubmissionCount = z.looseObject({
  count: z.number().int(),
});
export type FormSubmissionCount = z.infer<typeof FormSubmissionCount>;

// ─── Filters ────────────────────────────────────────────────────────────────

/**
 * The legacy `projectUid` key of an old sample, superseded by `interactionUuid`:
 * refused with a message that says which key to use.
 */
const supersededProjectUid = z
  .never({ error: 'projectUid is superseded: select the form data with interactionUuid.' })
  .optional();

/**
 * Filters as query values (list and count). `jsonEq` and `jsonLike` are
 * URL-encoded JSON objects; the keys and matching rules inside them are not
 * shown in spec 02, so any JSON object is accepted.
 */
const queryFilters = {
  interactionUuid: z.uuid({ error: 'Must be the interaction UUID.' }),
  /** Submission URL. */
  url: z.string().optional(),
  /** Earliest submission time. */
  from: isoDateTime.optional(),
  /** Latest submission time. */
  to: isoDateTime.optional(),
  /** JSON object to match exactly. */
  jsonEq: jsonObjectText.optional(),
  /** JSON object to match partially. */
  jsonLike: jsonObjectText.optional(),
  projectUid: supersededProjectUid,
};

/** GET /api/orgs/<organization_id>/forms/data. */
export const FormSubmissionListQuery = z.strictObject({
  ...queryFilters,
  /** true for descending order. */
  orderDesc: queryBoolean.optional(),
});
export type FormSubmissionListQuery = z.input<typeof FormSubmissionListQuery>;

/** GET /api/orgs/<organization_id>/forms/count: the list filters without `orderDesc` (list and CSV only). */
export const FormSubmissionCountQuery = z.strictObject(queryFilters);
export type FormSubmissionCountQuery = z.input<typeof FormSubmissionCountQuery>;

/**
 * `jsonEq` / `jsonLike` in the CSV body: the spec types them "object" and
 * describes the query form as URL-encoded JSON; in a JSON body the object
 * itself is accepted, and so is its JSON text (the query form), both sent as given.
 */
const bodyJsonObject = z.union([z.record(z.string(), z.unknown()), jsonObjectText], {
  error: 'Must be a JSON object.',
});

/**
 * POST /api/orgs/<organization_id>/forms/csv. The answer is CSV text with a
 * header row (streamed, never parsed); a value is empty where the field did
 * not exist at submission time.
 */
export const FormSubmissionCsvRequest = z.strictObject({
  /** The access token, required in the body in addition to the Authorization header. */
  token: requiredString,
  interactionUuid: z.uuid({ error: 'Must be the interaction UUID.' }),
  url: z.string().optional(),
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  jsonEq: bodyJsonObject.optional(),
  jsonLike: bodyJsonObject.optional(),
  orderDesc: z.boolean().optional(),
  projectUid: supersededProjectUid,
});
export type FormSubmissionCsvRequest = z.input<typeof FormSubmissionCsvRequest>;
