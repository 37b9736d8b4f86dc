/**
 * The HTTP routes connectors add under `/connectors/<name>/…`. Kept as data
 * and matched here, so a connector may add routes at any time (even after the
 * server listens) and the gateway's Fastify app has one route for them all.
 */
import type { ConnectorRoutes, RouteHandler } from './api.ts';

interface Entry {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

export interface RouteMatch {
  handler: RouteHandler;
  params: Record<string, string>;
}

export class ConnectorRouteTable {
  readonly #routes = new Map<string, Entry[]>();

  /** The `routes` member of one connector's context. */
  forConnector(name: string): ConnectorRoutes {
    return {
      add: (method, path, handler) => {
        if (!path.startsWith('/')) throw new TypeError(`route path must start with "/": ${path}`);
        const list = this.#routes.get(name) ?? [];
        const segments = split(path);
        if (list.some((e) => e.method === method && e.segments.join('/') === segments.join('/'))) {
          throw new TypeError(`connector ${name} already serves ${method} ${path}`);
        }
        list.push({ method, segments, handler });
        this.#routes.set(name, list);
      },
    };
  }

  /** Removes every route of `name` and hands them over (a connector replaced: its new instance adds its own). */
  take(name: string): readonly unknown[] {
    const list = this.#routes.get(name) ?? [];
    this.#routes.delete(name);
    return list;
  }

  /** Puts back what `take` removed (the new instance could not be made). */
  restore(name: string, routes: readonly unknown[]): void {
    this.#routes.set(name, [...(routes as Entry[])]);
  }

  /** The handler for `method path` of connector `name`; `'method'` when only the method is wrong. */
  match(name: string, method: string, path: string): RouteMatch | 'method' | undefined {
    const given = split(path);
    let pathMatched = false;
    for (const entry of this.#routes.get(name) ?? []) {
      const params = matchSegments(entry.segments, given);
      if (!params) continue;
      if (entry.method === method) return { handler: entry.handler, params };
      pathMatched = true;
    }
    return pathMatched ? 'method' : undefined;
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(pattern: string[], given: string[]): Record<string, string> | undefined {
  if (pattern.length !== given.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, p] of pattern.entries()) {
    const g = given[i] as string;
    if (p.startsWith(':')) params[p.slice(1)] = g; // Fastify decoded the path already
    else if (p !== g) return undefined;
  }
  return params;
}
