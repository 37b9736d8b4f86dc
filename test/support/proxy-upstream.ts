/**
 * The proxy's test bench: one recording platform upstream on port 0 (each
 * request's method, raw request target as node:http saw it, headers and body,
 * answered by a script) and a gateway whose proxy points at it, with one client
 * `crm` allowed GET/POST under `…/unified_messaging`.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.ts';

export const PROXY_ORG = '6f1c1f1e-8d1a-4a8e-9a57-0d4f1b0c2a10';
export const PROXY_KEY = 'gw-key-for-the-crm-0123456789';
export const sha256Hex = (s: string): string => createHash('sha256').update(s).digest('hex');
export const proxyAuth = { authorization: `Bearer ${PROXY_KEY}` };

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived (node:http does not normalise it). */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type UpstreamScript = (req: RecordedRequest, res: ServerResponse) => void;

const answerEmptyList: UpstreamScript = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');

export async function recordingUpstream(script: UpstreamScript = answerEmptyList): Promise<{ url: string; seen: RecordedRequest[] }> {
  const seen: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(rec);
      script(rec, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A gateway proxying to `upstreamUrl`; `proxy` is merged over the default client list, `settings` over the top level. */
export async function proxyGateway(
  upstreamUrl: string,
  proxy: Record<string, unknown> = {},
  logLines?: string[],
  settings: Record<string, unknown> = {},
): Promise<TestGateway> {
  return startTestGateway({
    ...(logLines ? { logLines } : {}),
    connectors: [],
    platformUrl: upstreamUrl,
    settings: {
      platform: { url: upstreamUrl, organization_id: PROXY_ORG, token: 'platform-secret-token' },
      proxy: {
        clients: [
          {
            name: 'crm',
            key_sha256: sha256Hex(PROXY_KEY),
            allow: [{ methods: ['GET', 'POST'], paths: ['/api/v5/orgs/<organization_id>/unified_messaging', '/api/v5/orgs/<organization_id>/unified_messaging/*'] }],
          },
        ],
        ...proxy,
      },
      ...settings,
    },
  });
}
