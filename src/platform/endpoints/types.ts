/**
 * One documented endpoint of the platform, as data: the proxy's route table,
 * the request checks and the typed client are all generated from lists of
 * these (one list per spec area, in this folder), and the helper that builds
 * a section of such a list.
 */
import type { z } from 'zod';

/** Which configured address serves the path: `platform.url`, `platform.builder_url` or `platform.auth_url`. */
export type Upstream = 'api' | 'builder' | 'auth';

export type EndpointMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface EndpointSpec {
  /** Stable name, used as the typed client's function name: `listChannels`, `createFormSubmission`. */
  id: string;
  method: EndpointMethod;
  /** The documented path with `<param>` placeholders, e.g. `/api/pub/v1/orgs/<organization_id>/channels/<channel_id>`. */
  path: string;
  upstream: Upstream;
  /** Which spec document and section it comes from, e.g. `03 Channel messaging`. */
  source: string;
  summary: string;
  /** Strict schema of the query (absent: any query is passed on unchecked). */
  query?: z.ZodType;
  /** Strict schema of a JSON body (absent: no JSON body is checked; multipart and downloads stream through). */
  body?: z.ZodType;
  /** Lenient schema of a 2xx JSON answer. */
  response?: z.ZodType;
  /** The answer is a file (CSV, XLSX, an image): streamed, never parsed. */
  download?: boolean;
  /** The request is multipart (an upload): streamed, never parsed. */
  multipart?: boolean;
  /** Redirects are part of the protocol (sign-in): passed to the caller untouched. */
  redirects?: boolean;
}

/** An entry of one section of a spec: upstream and source are added by {@link section}. */
type SectionEntry = Omit<EndpointSpec, 'upstream' | 'source'>;

/**
 * A section's entries, all served by `platform.url`: each given `upstream: 'api'` and the section's `source`, their
 * literal types kept (the typed client reads them).
 */
export function section<const E extends readonly SectionEntry[]>(
  source: string,
  entries: E,
): { readonly [K in keyof E]: E[K] & { readonly upstream: 'api'; readonly source: string } } {
  return Object.freeze(entries.map((e) => Object.freeze({ ...e, upstream: 'api', source }))) as never;
}
