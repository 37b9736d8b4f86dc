/**
 * The best text of a mail mailparser refused (too many parts, a header
 * block past its limits…), read with no more than the header block reader:
 *
 *   - a single part: its body, transfer encoding (base64, quoted-printable)
 *     and charset decoded, HTML converted;
 *   - multipart: split on the boundary (a missing closing boundary is
 *     fine), the first text/plain part found depth-first, else the first
 *     text/html part, else nothing.
 *
 * Never throws for any input; returns '' when nothing readable is there.
 */
import { htmlToReadableText } from '../../src/connector/api.ts';
import { decodeBytes, readHeaderBlock } from './raw-headers.ts';

const MAX_DEPTH = 4;

function param(value: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(value);
  return match?.[1] ?? match?.[2];
}

function decodeQuotedPrintable(bytes: Buffer): Buffer {
  const text = bytes
    .toString('latin1')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(text, 'latin1');
}

function decodeTransfer(bytes: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(bytes.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(bytes);
    default:
      return bytes;
  }
}

function decodeCharset(bytes: Buffer, charset: string | undefined): string {
  if (charset) {
    try {
      return new TextDecoder(charset.trim()).decode(bytes);
    } catch {
      // an unknown charset name: guess below
    }
  }
  return decodeBytes(bytes);
}

interface Found {
  plain?: string;
  html?: string;
}

function search(part: Buffer, depth: number, found: Found): void {
  const { headers, bodyStart } = readHeaderBlock(part);
  const contentType = headers['content-type']?.[0] ?? 'text/plain';
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  const body = part.subarray(bodyStart);

  if (type.startsWith('multipart/')) {
    const boundary = param(contentType, 'boundary');
    if (boundary === undefined || depth >= MAX_DEPTH) return;
    const delimiter = `--${boundary}`;
    const pieces = body.toString('latin1').split(/\r?\n/);
    let current: string[] | undefined;
    const parts: string[][] = [];
    for (const line of pieces) {
      if (line.startsWith(delimiter)) {
        if (current) parts.push(current);
        current = line.trimEnd() === `${delimiter}--` ? undefined : [];
        if (current === undefined) break;
        continue;
      }
      current?.push(line);
    }
    if (current) parts.push(current); // no closing boundary: the truncated last part counts
    for (const lines of parts) {
      if (found.plain !== undefined) return;
      search(Buffer.from(lines.join('\n'), 'latin1'), depth + 1, found);
    }
    return;
  }

  const disposition = headers['content-disposition']?.[0]?.split(';', 1)[0]?.trim().toLowerCase();
  if (disposition === 'attachment' || (type !== 'text/plain' && type !== 'text/html')) return;
  const text = decodeCharset(decodeTransfer(body, headers['content-transfer-encoding']?.[0]), param(contentType, 'charset'));
  if (type === 'text/plain') found.plain ??= text;
  else found.html ??= text;
}

/** The readable text of a raw mail, without mailparser. */
export function fallbackText(raw: Buffer): string {
  try {
    const found: Found = {};
    search(raw, 0, found);
    if (found.plain !== undefined && found.plain.trim() !== '') return found.plain;
    return found.html !== undefined ? htmlToReadableText(found.html) : (found.plain ?? '');
  } catch {
    return '';
  }
}
