/**
 * undici by the sub-paths the gateway uses: Pool and Agent, with the request
 * API every dispatcher gets, and the error classes. Its root entry also loads
 * fetch, WebSocket, EventSource, the mock agents, the cache stores and every
 * interceptor: 110 modules where these take 32, about 4 MiB that every
 * gateway would hold (docs/decisions/footprint.md). The types are the
 * package's; the rest of the gateway imports undici from here.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
const lib = (path: string): unknown => require(`undici/lib/${path}.js`);

// What the root entry does: every dispatcher gets request(), stream(), pipeline(), connect() and upgrade().
Object.assign((lib('dispatcher/dispatcher') as { prototype: object }).prototype, lib('api/index'));

export const Pool = lib('dispatcher/pool') as typeof Undici.Pool;
export type Pool = Undici.Pool;
export const Agent = lib('dispatcher/agent') as typeof Undici.Agent;
export type Agent = Undici.Agent;
export const errors = lib('core/errors') as typeof Undici.errors;
export type { Dispatcher } from 'undici';
