/**
 * The counterpart's HTTP side: two real servers on port 0 — the Graph API
 * (`/{version}/…`: messages-route.ts, media-routes.ts) and the media host its
 * media URLs point to (WhatsApp serves media from another host than the
 * API's) — that authenticate each request with the access token as Bearer
 * (none: 104; another: 401 with 190), refuse a version the API does not have
 * and a path it does not serve in Graph's shape (graph-errors.ts), and record
 * every request (method, path, status, Graph code, when). A test may queue
 * failures: requests whose "METHOD /path" matches answer with that status and
 * Graph error instead, `times` times (after letting `skip` of them through).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer as readBody } from 'node:stream/consumers';
import { GraphError, tokenInvalid, tokenMissing, unknownPath, unsupported } from './graph-errors.ts';
import { downloadMedia, mediaInfo, uploadMedia } from './media-routes.ts';
import { sendMessage } from './messages-route.ts';
import type { SentMessage, WhatsAppStore } from './whatsapp-store.ts';

/** The versions this counterpart answers (the Graph API versions available when it was written). */
export const KNOWN_VERSIONS = ['v20.0', 'v21.0', 'v22.0', 'v23.0', 'v24.0', 'v25.0', 'v26.0'];

export interface GraphRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

export interface Answer {
  status: number;
  json?: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

/** What the routes work on. */
export interface Graph {
  store: WhatsAppStore;
  phoneNumberId: string;
  accessToken: string;
  mediaHostUrl: string;
  /** Told of each message sent (the status callbacks follow it). */
  onSent(message: SentMessage): void;
  /** The media ids downloaded from the media host, in order. */
  mediaDownloads: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  /** Graph's error code of a refusal. */
  code: number | undefined;
  at: number;
}

export interface Failure {
  match: RegExp;
  status: number;
  error: { message: string; code: number; details?: string };
  times: number;
  /** Matching requests let through first (a failure of a reply's second message). */
  skip?: number;
  retryAfter?: number;
}

/** The Graph API's answer to one request. */
async function route(request: GraphRequest, graph: Graph): Promise<Answer> {
  const [version, id, edge, ...more] = request.path.split('/').slice(1);
  if (version === undefined || !KNOWN_VERSIONS.includes(version)) throw unknownPath(request.path);
  const auth = request.headers.authorization;
  if (auth === undefined || auth.trim() === '') throw tokenMissing();
  if (auth !== `Bearer ${graph.accessToken}`) throw tokenInvalid();
  if (id === undefined || id === '' || more.length > 0) throw unknownPath(request.path);
  if (edge === undefined && request.method === 'GET') return mediaInfo(request, graph, id);
  if (id !== graph.phoneNumberId || request.method !== 'POST') throw unsupported(request.method, id);
  if (edge === 'messages') return sendMessage(request, graph);
  if (edge === 'media') return uploadMedia(request, graph);
  throw unknownPath(request.path);
}

async function listen(handler: (req: IncomingMessage, body: Buffer) => Promise<Answer>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void (async () => {
      const answer = await handler(req, await readBody(req));
      const headers = { ...(answer.json !== undefined ? { 'content-type': 'application/json; charset=UTF-8' } : {}), ...answer.headers };
      res.writeHead(answer.status, headers).end(answer.raw ?? (answer.json === undefined ? '' : JSON.stringify(answer.json)));
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(err), code: 1, type: 'OAuthException' } }));
      else res.destroy();
    });
  });
  // Its connections never hold the test process (the contract suite counts what a connector leaves open).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export interface GraphServers {
  url: string;
  mediaHostUrl: string;
  requests: RecordedRequest[];
  failures: Failure[];
  close(): Promise<void>;
}

/** Starts both servers; `graph.mediaHostUrl` is filled in once the media host listens. */
export async function startGraphServers(graph: Omit<Graph, 'mediaHostUrl'> & { mediaHostUrl?: string }): Promise<GraphServers> {
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  const answered = (method: string, path: string, fn: () => Promise<Answer> | Answer) => async (): Promise<Answer> => {
    let answer: Answer;
    try {
      const failure = failures.find((f) => f.times > 0 && f.match.test(`${method} ${path}`));
      if (failure?.skip) failure.skip -= 1;
      else if (failure) {
        failure.times -= 1;
        throw new GraphError(failure.status, failure.error, failure.retryAfter === undefined ? {} : { 'retry-after': String(failure.retryAfter) });
      }
      answer = await fn();
    } catch (err) {
      if (!(err instanceof GraphError)) throw err;
      answer = { status: err.status, json: err.body, headers: { 'www-authenticate': 'OAuth "Facebook Platform"', ...err.headers } };
    }
    const code = (answer.json as { error?: { code?: number } } | undefined)?.error?.code;
    requests.push({ method, path, status: answer.status, code, at: Date.now() });
    return answer;
  };
  const requestOf = (req: IncomingMessage, body: Buffer): GraphRequest => {
    const url = new URL(req.url ?? '/', 'http://graph');
    return { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers as Record<string, string | undefined>, body };
  };
  const media = await listen((req, body) => {
    const request = requestOf(req, body);
    return answered(request.method, request.path, () => downloadMedia(request, graph as Graph))();
  });
  graph.mediaHostUrl = media.url;
  const api = await listen((req, body) => {
    const request = requestOf(req, body);
    return answered(request.method, request.path, () => route(request, graph as Graph))();
  });
  return {
    url: api.url,
    mediaHostUrl: media.url,
    requests,
    failures,
    close: async () => {
      for (const { server } of [api, media]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
