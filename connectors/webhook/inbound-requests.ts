/**
 * The bodies the inbound routes accept, and reading one from a raw request:
 * content type, UTF-8, JSON, schema. Each failure is an `InboundRefusal` that
 * the route turns into a JSON answer naming every bad field, e.g.
 *
 *   400 {"code":"TG_REQUEST_INVALID","message":"messages.0.body: This field may not be blank.",
 *        "errors":[{"path":"messages.0.body","message":"This field may not be blank."}]}
 */
import { z } from 'zod';
import { RouteError, type RouteRequest } from '../../src/connector/api.ts';

export const MAX_THREAD_ID = 400;
export const MAX_ID = 512;
export const MAX_SENDER_NAME = 255;
export const MAX_MESSAGES = 100;

const notBlank = (value: string) => value.trim().length > 0;
const BLANK = { error: 'This field may not be blank.' };
const tooLong = (max: number) => ({ error: `Ensure this field has no more than ${max} characters.` });

const id = (max: number) => z.string().refine(notBlank, BLANK).max(max, tooLong(max));

export const InboundMessageBody = z.strictObject({
  message_id: id(MAX_ID),
  sender_id: id(MAX_ID),
  sender_name: z.string().max(MAX_SENDER_NAME, tooLong(MAX_SENDER_NAME)).optional(),
  body: z.string().refine(notBlank, BLANK),
});

export const PostMessagesBody = z.strictObject({
  thread_id: id(MAX_THREAD_ID),
  messages: z
    .array(InboundMessageBody)
    .min(1, { error: 'Ensure this field has at least 1 message.' })
    .max(MAX_MESSAGES, { error: `Ensure this field has no more than ${MAX_MESSAGES} messages.` }),
  variables: z.record(z.string(), z.string().nullable()).optional(),
  close_session: z.boolean().optional(),
});
export type PostMessagesBody = z.output<typeof PostMessagesBody>;

export const PostCloseBody = z.strictObject({
  thread_id: id(MAX_THREAD_ID),
});

export interface FieldError {
  path: string;
  message: string;
}

export type RefusalCode = 'TG_REQUEST_INVALID' | 'TG_UNSUPPORTED_MEDIA_TYPE' | 'TG_THREAD_NOT_FOUND';

/** A request the connector answers with a 4xx; `errors` lists fields for a 400. */
export class InboundRefusal extends RouteError {
  constructor(code: RefusalCode, status: number, message: string, errors?: FieldError[]) {
    super(status, code, message, errors);
  }

  static invalid(errors: FieldError[]): InboundRefusal {
    const message = errors.map((e) => (e.path === '' ? e.message : `${e.path}: ${e.message}`)).join('; ');
    return new InboundRefusal('TG_REQUEST_INVALID', 400, message, errors);
  }
}

/** `application/json` or `application/<something>+json`, in UTF-8 when a charset is named. */
function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const [type = '', ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) return false;
  const charset = params.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Missing keys say so plainly instead of "expected string, received undefined". */
const requiredMessage: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'This field is required.' : undefined;

/** zod issues as one entry per field; an unknown key is named in the path. */
function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key].join('.'), message: 'Unknown field.' }));
    }
    return [{ path: path.join('.'), message: issue.message }];
  });
}

/** The request's JSON body checked against `schema`, or an `InboundRefusal`. */
export function readJsonBody<S extends z.ZodType>(request: RouteRequest, schema: S): z.output<S> {
  if (!isJsonContentType(request.headers['content-type'])) {
    throw new InboundRefusal('TG_UNSUPPORTED_MEDIA_TYPE', 415, 'expected Content-Type: application/json (UTF-8)');
  }
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(request.rawBody));
  } catch (err) {
    const reason = err instanceof SyntaxError ? err.message : 'the body is not valid UTF-8';
    throw InboundRefusal.invalid([{ path: '', message: `malformed JSON: ${reason}` }]);
  }
  const parsed = schema.safeParse(json, { error: requiredMessage });
  if (!parsed.success) throw InboundRefusal.invalid(fieldErrors(parsed.error));
  return parsed.data;
}
