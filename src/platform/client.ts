/**
 * The typed client of the platform's whole documented API, exported as
 * `threadgate/platform`: one function per endpoint of the lists in
 * `endpoints/`, generated at run time from the same data the proxy routes
 * with, typed from their literal types (`client-types.ts`).
 *
 *   const platform = createPlatformClient({ url, builderUrl, authUrl, token, organizationId });
 *   const channel = await platform.createChannel({ body: { name: 'ops' } });
 *   for await (const chat of platform.paginate('listOwnedChats', { query: { is_ended: 'false' } })) …
 *
 * Queries and bodies are checked with their strict schemas before anything
 * is sent (PlatformRequestInvalidError names each field); answers are parsed
 * with the lenient response schemas; a non-2xx answer throws
 * PlatformHttpError with `status` and the platform's `detail`. Transport,
 * retries and timeouts are the PlatformHttpClient's.
 */
import type { EndpointFunctions, EndpointId, EndpointOf, ArgsTuple, ItemOf, PaginatedId } from './client-types.ts';
import { ALL_ENDPOINTS } from './endpoints/index.ts';
import { createEndpointClient, type PlatformClientOptions } from './endpoint-client.ts';

export type * from './client-types.ts';
export { PlatformDownload, DownloadConsumedError } from './download.ts';
export * from './errors.ts';
export { callOptions, isPathSegment } from './endpoint-client.ts';
export type { PlatformClientOptions, PlatformConnectOptions, PlatformTransportOptions } from './endpoint-client.ts';

export type PlatformClient = EndpointFunctions & {
  readonly organizationId: string | undefined;
  /** Every item of a paginated listing, following `next` from page to page. */
  paginate<I extends PaginatedId>(id: I, ...args: ArgsTuple<EndpointOf<I>>): AsyncGenerator<ItemOf<EndpointOf<I>>, void, undefined>;
  /** Closes the connection pools the client opened (injected transports stay open). */
  close(): Promise<void>;
};

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  return createEndpointClient(ALL_ENDPOINTS, options) as unknown as PlatformClient;
}

export type { EndpointId };
