/**
 * The proxy's route table: generated from the endpoint lists of the spec
 * documents, never written by hand per endpoint. Lookup is by method and
 * path; a path that is documented under another method is told apart (405).
 */
import type { EndpointSpec } from '../../platform/endpoints/types.ts';
import { compilePattern, matchPattern, splitPath, type PathPattern } from './path-patterns.ts';

export interface RouteHit {
  endpoint: EndpointSpec;
  params: Record<string, string>;
}

export class ProxyRouteTable {
  readonly #routes: { endpoint: EndpointSpec; pattern: PathPattern }[];

  constructor(endpoints: readonly EndpointSpec[]) {
    // More literal segments first, so `/channels/<id>/messages` never loses to a looser pattern.
    this.#routes = endpoints
      .map((endpoint) => ({ endpoint, pattern: compilePattern(endpoint.path) }))
      .sort((a, b) => literalCount(b.pattern) - literalCount(a.pattern));
  }

  get size(): number {
    return this.#routes.length;
  }

  /** The endpoint for `method path`, `'method'` when only the method is not documented, else undefined. */
  lookup(method: string, path: string): RouteHit | 'method' | undefined {
    let pathKnown = false;
    const segments = splitPath(path);
    for (const { endpoint, pattern } of this.#routes) {
      if (pattern.segments.length !== segments.length) continue;
      const params = matchPattern(pattern, segments);
      if (!params) continue;
      if (endpoint.method === method) return { endpoint, params };
      pathKnown = true;
    }
    return pathKnown ? 'method' : undefined;
  }
}

function literalCount(p: PathPattern): number {
  return p.segments.filter((s) => !s.startsWith('<')).length;
}
