/**
 * A connector's HTTP routes, served below `/connectors/<name>` (`ctx.routes`):
 * what a handler gets and answers. Part of the connector API (api.ts
 * re-exports it).
 */
export interface RouteRequest {
  method: string;
  /** The path below `/connectors/<name>`, e.g. `/messages`. */
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
  /** The body bytes exactly as received (for signature checks). */
  rawBody: Buffer;
}

export interface RouteResponse {
  status: number;
  /** Sent as JSON; omit for an empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

export type RouteHandler = (request: RouteRequest) => Promise<RouteResponse> | RouteResponse;

export interface ConnectorRoutes {
  /**
   * Serves `method` at `/connectors/<name><path>`; `path` starts with `/` and may hold `:param` segments. Bodies of
   * any content type arrive raw, up to the gateway's body limit. Routes may be added from `create` on. A handler
   * that throws a `RouteError` answers with its status and JSON body; any other error answers 500 without details
   * (and is logged).
   */
  add(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, handler: RouteHandler): void;
}
