/**
 * The types of the typed client, computed from the endpoint lists: each
 * endpoint's id becomes a function whose arguments are its path parameters
 * (from the `<placeholders>` of its path), its query and body (the inputs of
 * its strict schemas), and whose result is the output of its response schema.
 * Nothing here exists at run time.
 */
import type { z } from 'zod';
import type { PlatformDownload } from './download.ts';
import type { ENDPOINTS } from './endpoints/index.ts';
import type { CallOptions } from './http-request.ts';

/** The answer of a sign-in endpoint that redirects (`authorize`): where to, never followed. */
export interface PlatformRedirect {
  status: number;
  /** The Location header, e.g. the redirect_uri with the tokens or the error in its hash or query. */
  location: string | undefined;
  /** A body sent with a 2xx (a login page), undefined with a 3xx. */
  body: unknown;
}

type AnyEndpoint = (typeof ENDPOINTS)[number];

/** `listChannels`, `createUnifiedMessages`, … — one per documented endpoint. */
export type EndpointId = AnyEndpoint['id'];
/** The endpoints by id, built once (key remapping over the union; `Extract` per id is too costly for tsc). */
type ById = { [E in AnyEndpoint as E['id']]: E };
export type EndpointOf<I extends EndpointId> = ById[I];

type Placeholders<P extends string> = P extends `${string}<${infer Name}>${infer Rest}` ? Name | Placeholders<Rest> : never;

export type ParamValue = string | number;

/** The path's placeholders; `organization_id` may be left out when the client was given one. */
type PathParams<P extends string> = { [K in Exclude<Placeholders<P>, 'organization_id'>]: ParamValue } & {
  [K in Extract<Placeholders<P>, 'organization_id'>]?: ParamValue;
};

/** A query the proxy does not check is passed on as given. */
export type LooseQuery = Record<string, ParamValue | boolean | readonly string[] | undefined>;

type Part<Key extends string, T> = {} extends T ? { [K in Key]?: T } : { [K in Key]: T };

type ParamsPart<E> = E extends { readonly path: infer P extends string } ? Part<'params', PathParams<P>> : never;

type QueryPart<E> = E extends { readonly query: infer Q extends z.ZodType } ? Part<'query', z.input<Q>> : { query?: LooseQuery };

/**
 * A multipart upload takes a FormData; a checked body the input of its
 * schema; an endpoint whose body the document does not show takes any JSON
 * value or URLSearchParams (sent as a form, e.g. to `/token`).
 */
type BodyPart<E> = E extends { readonly multipart: true }
  ? { body: FormData }
  : E extends { readonly body: infer B extends z.ZodType }
    ? Part<'body', z.input<B>>
    : { body?: unknown };

export interface CallExtras extends CallOptions {
  /** Extra request headers, e.g. `X-PRIVATE-KEY` for decrypted chats. Authorization is the client's. */
  headers?: Record<string, string>;
}

export type CallArgs<E> = ParamsPart<E> & QueryPart<E> & BodyPart<E> & CallExtras;

/** The arguments object is optional when none of its parts is required. */
export type ArgsTuple<E> = {} extends CallArgs<E> ? [args?: CallArgs<E>] : [args: CallArgs<E>];

export type ResultOf<E> = E extends { readonly redirects: true }
  ? PlatformRedirect
  : E extends { readonly download: true }
  ? PlatformDownload
  : E extends { readonly response: infer R extends z.ZodType }
    ? z.output<R>
    : unknown;

type PageOf<E> = E extends { readonly response: infer R extends z.ZodType }
  ? Extract<z.output<R>, { next: string | null; results: readonly unknown[] }>
  : never;

/** The item type of a paginated endpoint's `results`. */
export type ItemOf<E> = PageOf<E> extends { results: readonly (infer T)[] } ? T : never;

/** Endpoints whose answer is the `{ next, previous, results }` wrapper. */
export type PaginatedId = { [I in keyof ById]: [PageOf<ById[I]>] extends [never] ? never : I }[keyof ById];

export type EndpointFunctions = {
  readonly [I in keyof ById]: (...args: ArgsTuple<ById[I]>) => Promise<ResultOf<ById[I]>>;
};
