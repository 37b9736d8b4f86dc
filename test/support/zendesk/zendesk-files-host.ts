/**
 * Where the counterpart's files are downloaded, as Zendesk serves them
 * (https://developer.zendesk.com/documentation/ticketing/managing-tickets/working-with-url-properties/,
 * https://support.zendesk.com/hc/en-us/articles/204265396 "private attachments"):
 *
 *   GET {account}/attachments/token/<token>/?name=…   (an attachment's content_url)
 *     private attachments on, no credentials → 302 to {account}/access/unauthenticated (the sign-in page, HTML)
 *     otherwise                              → 302 to the file on ANOTHER host, a signed URL valid 5 minutes
 *   GET {files host}/attachment/<id>/<signature>?name=…  → the bytes, typed; a bad or expired signature → 403
 *
 * The files host is a second server on its own port (another origin). It
 * notes whether each request carried an Authorization header: the API
 * credentials must never reach it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { notFound } from './zendesk-errors.ts';
import type { Route } from './zendesk-routes.ts';
import type { Clock, ZendeskStore } from './zendesk-store.ts';

const SIGNED_FOR_MS = 5 * 60_000;

export interface FileHostRequest {
  path: string;
  /** Whether the request carried an Authorization header (it never should). */
  authorization: boolean;
  status: number;
}

export interface FilesHost {
  url: string;
  requests: FileHostRequest[];
  /** A signed path of the file, valid five minutes. */
  signedPath(fileId: number): string;
  close(): Promise<void>;
}

export async function startFilesHost(store: ZendeskStore, clock: Clock): Promise<FilesHost> {
  const signatures = new Map<string, { fileId: number; until: number }>();
  const requests: FileHostRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://files');
    const match = /^\/attachment\/(\d+)\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    const signed = match ? signatures.get(match[2]!) : undefined;
    const file = signed && signed.fileId === Number(match![1]) && signed.until > clock.now() ? store.files.get(signed.fileId) : undefined;
    const status = req.method !== 'GET' ? 405 : file && !file.deleted ? 200 : 403;
    requests.push({ path: url.pathname, authorization: req.headers.authorization !== undefined, status });
    if (status !== 200) {
      res.writeHead(status, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return;
    }
    res.writeHead(200, { 'content-type': file!.content_type, 'content-length': String(file!.content.length), 'content-disposition': `attachment; filename="${encodeURIComponent(file!.file_name)}"` }).end(file!.content);
  });
  // Its connections never hold the test process (the contract suite counts what a connector leaves open).
  server.on('connection', (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Another origin than the account's (which listens on 127.0.0.1): the same machine, named differently.
  const url = `http://localhost:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    signedPath(fileId: number): string {
      const signature = randomBytes(16).toString('base64url');
      signatures.set(signature, { fileId, until: clock.now() + SIGNED_FOR_MS });
      return `/attachment/${fileId}/${signature}`;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The account's side: content_url answers with a redirect (to the files host, or to the sign-in page), and the sign-in page itself. */
export const fileRoutes: Route[] = [
  {
    method: 'GET',
    pattern: /^\/attachments\/token\/([A-Za-z0-9]+)\/?$/,
    anonymous: true,
    handle(call, desk) {
      const file = [...desk.store.files.values()].find((f) => f.token === call.params[0]);
      if (!file || file.deleted) throw notFound();
      if (desk.privateAttachments && !call.user) {
        const back = encodeURIComponent(`${desk.root}${call.path}`);
        return { status: 302, headers: { location: `${desk.root}/access/unauthenticated?return_to=${back}` }, raw: Buffer.from('<html><body>You are being redirected.</body></html>') };
      }
      const name = encodeURIComponent(call.query.get('name') ?? file.file_name);
      return { status: 302, headers: { location: `${desk.filesUrl}${desk.signedPath(file.id)}?name=${name}` }, raw: Buffer.from('<html><body>You are being redirected.</body></html>') };
    },
  },
  {
    method: 'GET',
    pattern: /^\/access\/unauthenticated$/,
    anonymous: true,
    handle: () => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, raw: Buffer.from('<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Sign in to Acme</form></body></html>') }),
  },
];
