/**
 * The proxy's route table: generated from the endpoint lists of the spec
 * documents, never written by hand per endpoint. Lookup is by method and
 * path; a path that is documented under another method is told apart (405).
 *
 * The templates are compiled once into a tree of segments (a literal child
 * per segment value, one child for any `<param>`), so a lookup walks the
 * path's segments instead of trying each pattern. Where two templates match
 * one path, the one with more literal segments wins (then the one listed
 * first): `/channels/<id>/messages` never loses to a looser pattern.
 */
import type { EndpointSpec } from '../../platform/endpoints/types.ts';
import { isParameter, splitPath } from './path-patterns.ts';

export interface RouteHit {
  endpoint: EndpointSpec;
  params: Record<string, string>;
}

interface Route {
  endpoint: EndpointSpec;
  /** Lower wins: by literal segments (more first), then by place in the lists. */
  rank: number;
  /** Where the template's `<param>`s are, and their names. */
  paramAt: number[];
  paramNames: string[];
}

interface Node {
  literal: Map<string, Node>;
  param: Node | undefined;
  /** Templates ending at this depth. */
  routes: Route[];
}

const newNode = (): Node => ({ literal: new Map(), param: undefined, routes: [] });

export class ProxyRouteTable {
  readonly #root = newNode();
  readonly #size: number;

  constructor(endpoints: readonly EndpointSpec[]) {
    this.#size = endpoints.length;
    const compiled = endpoints.map((endpoint, order) => {
      const segments = splitPath(endpoint.path);
      const literals = segments.filter((s) => !isParameter(s)).length;
      return { endpoint, segments, literals, order };
    });
    const ranked = [...compiled].sort((a, b) => b.literals - a.literals || a.order - b.order);
    ranked.forEach(({ endpoint, segments }, rank) => {
      let node = this.#root;
      const paramAt: number[] = [];
      const paramNames: string[] = [];
      segments.forEach((segment, i) => {
        if (isParameter(segment)) {
          paramAt.push(i);
          paramNames.push(segment.slice(1, -1));
          node = node.param ??= newNode();
        } else {
          let next = node.literal.get(segment);
          if (!next) node.literal.set(segment, (next = newNode()));
          node = next;
        }
      });
      node.routes.push({ endpoint, rank, paramAt, paramNames });
    });
  }

  get size(): number {
    return this.#size;
  }

  /** The endpoint for `method path`, `'method'` when only the method is not documented, else undefined. */
  lookup(method: string, path: string): RouteHit | 'method' | undefined {
    return this.lookupSegments(method, splitPath(path));
  }

  /** `lookup` for a path already split into its segments. */
  lookupSegments(method: string, segments: readonly string[]): RouteHit | 'method' | undefined {
    const found: { best: Route | undefined; pathKnown: boolean } = { best: undefined, pathKnown: false };
    walk(this.#root, segments, 0, method, found);
    const { best } = found;
    if (best === undefined) return found.pathKnown ? 'method' : undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < best.paramAt.length; i++) params[best.paramNames[i]!] = segments[best.paramAt[i]!]!;
    return { endpoint: best.endpoint, params };
  }
}

/** Every template matching `segments` from `depth` on: the best-ranked one of `method` kept, any other noted. */
function walk(node: Node, segments: readonly string[], depth: number, method: string, found: { best: Route | undefined; pathKnown: boolean }): void {
  if (depth === segments.length) {
    for (const route of node.routes) {
      if (route.endpoint.method !== method) found.pathKnown = true;
      else if (found.best === undefined || route.rank < found.best.rank) found.best = route;
    }
    return;
  }
  const literal = node.literal.get(segments[depth]!);
  if (literal !== undefined) walk(literal, segments, depth + 1, method, found);
  if (node.param !== undefined) walk(node.param, segments, depth + 1, method, found);
}
