/**
 * One HTTP/1.1 request written to a plain socket, byte for byte: the request
 * target is sent exactly as given (no URL parsing, no dot-segment removal), as
 * an attacker's client would. The answer's status, headers and body are read
 * back once the server closes the connection (the request asks it to).
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  head: string;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export async function rawRequest(base: string, method: string, target: string, headers: Record<string, string> = {}, body = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const lines = [`${method} ${target} HTTP/1.1`];
  // A given `connection` must still say `close`: the answer is read until the server closes.
  for (const [name, value] of Object.entries({ host: `${hostname}:${port}`, connection: 'close', ...headers })) lines.push(`${name}: ${value}`);
  if (body !== '' || method === 'POST') lines.push(`content-length: ${Buffer.byteLength(body)}`);
  const socket = connect(Number(port), hostname);
  // Written, not ended: a half-closed request counts as aborted. `connection: close` makes the server end it.
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, split).toString('latin1');
  const rest = raw.subarray(split + 4);
  const text = (/^transfer-encoding:\s*chunked/im.test(head) ? unchunk(rest) : rest).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, text, json };
}

function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    const size = Number.parseInt(bytes.subarray(at, eol).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
