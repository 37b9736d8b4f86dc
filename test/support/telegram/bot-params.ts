/**
 * A Bot API request's parameters, read the four ways Telegram takes them
 * (https://core.telegram.org/bots/api#making-requests): the URL's query
 * string, `application/x-www-form-urlencoded`, `application/json` (not for
 * uploads) and `multipart/form-data` (what uploads use). Query parameters
 * and the body's are merged, the body's winning. In a query or a form every
 * value is a string; numbers, booleans and JSON-serialized arrays
 * (`allowed_updates`) are read from their text, as Telegram does.
 *
 * The readers throw Telegram's 400 for a missing or unreadable parameter
 * ("Bad Request: chat_id is empty"; an unreadable one in the counterpart's
 * own words).
 */
import { badRequest } from './bot-errors.ts';

/** An uploaded file (a multipart part with a file name). */
export interface UploadedFile {
  filename: string;
  contentType: string;
  content: Buffer;
}

export class Params {
  readonly #values: Map<string, unknown>;

  constructor(values: Map<string, unknown>) {
    this.#values = values;
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }

  /** Every parameter as text, files by their name (for the request log). */
  summary(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, value] of this.#values) out[key] = isFile(value) ? `<file ${value.filename}, ${value.content.length} bytes>` : typeof value === 'string' ? value : JSON.stringify(value);
    return out;
  }

  string(name: string): string | undefined {
    const value = this.#values.get(name);
    if (value === undefined || value === null) return undefined;
    if (isFile(value)) throw badRequest(`${name} must be a string, not a file`);
    return typeof value === 'string' ? value : String(value);
  }

  /** An integer parameter (a JSON number or its digits); undefined when absent. */
  int(name: string): number | undefined {
    const value = this.#values.get(name);
    if (value === undefined || value === null || value === '') return undefined;
    const number = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isSafeInteger(number)) throw badRequest(`can't parse ${name} as an integer`);
    return number;
  }

  bool(name: string): boolean | undefined {
    const value = this.#values.get(name);
    if (value === undefined || value === null || value === '') return undefined;
    if (value === true || value === 'true' || value === '1' || value === 1) return true;
    if (value === false || value === 'false' || value === '0' || value === 0) return false;
    throw badRequest(`can't parse ${name} as a boolean`);
  }

  /** A list: a JSON array, or its JSON text (from a query or a form). */
  list(name: string): string[] | undefined {
    let value = this.#values.get(name);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        throw badRequest(`can't parse ${name} as a JSON-serialized array`);
      }
    }
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw badRequest(`${name} must be a JSON-serialized array of strings`);
    return value as string[];
  }

  /** An uploaded file, or the text given instead (a file_id or a URL). */
  fileOrString(name: string): UploadedFile | string | undefined {
    const value = this.#values.get(name);
    if (value === undefined || value === null || value === '') return undefined;
    return isFile(value) ? value : String(value);
  }
}

function isFile(value: unknown): value is UploadedFile {
  return value !== null && typeof value === 'object' && Buffer.isBuffer((value as UploadedFile).content);
}

/** The parameters of a request: its query, then its body by its Content-Type. */
export async function readParams(query: URLSearchParams, contentType: string | undefined, body: Buffer): Promise<Params> {
  const values = new Map<string, unknown>(query);
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (body.length === 0) return new Params(values);
  if (type === 'application/json') {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw badRequest("can't parse JSON object");
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw badRequest('the JSON body must be an object');
    for (const [key, value] of Object.entries(json)) values.set(key, value);
  } else if (type === 'application/x-www-form-urlencoded') {
    for (const [key, value] of new URLSearchParams(body.toString('utf8'))) values.set(key, value);
  } else if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType! } }).formData();
    } catch {
      throw badRequest("can't parse multipart/form-data");
    }
    for (const [key, value] of form) {
      if (typeof value === 'string') values.set(key, value);
      else values.set(key, { filename: value.name, contentType: value.type || 'application/octet-stream', content: Buffer.from(await value.arrayBuffer()) } satisfies UploadedFile);
    }
  }
  return new Params(values);
}
