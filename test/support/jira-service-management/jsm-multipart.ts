/**
 * The file parts of a `multipart/form-data` body (RFC 7578), as
 * `attachTemporaryFile` reads them: each part with a `filename` in its
 * Content-Disposition, its name and its bytes. A file name is read as UTF-8
 * with the escapes WHATWG FormData writes (`%22` for a quote, `%0A`, `%0D`),
 * or from `filename*=UTF-8''…` when given.
 */

export interface FilePart {
  field: string;
  filename: string;
  contentType: string;
  content: Buffer;
}

/** The parts, or undefined when the body is not multipart/form-data with a boundary. */
export function fileParts(contentType: string | undefined, body: Buffer): FilePart[] | undefined {
  const boundary = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: FilePart[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before the CRLF that precedes the next delimiter
    const split = part.indexOf('\r\n\r\n');
    if (split >= 0) {
      const head = part.subarray(0, split).toString('utf8');
      const disposition = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(head)?.[1] ?? '';
      const field = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? '';
      const star = /\bfilename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1];
      const plain = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
      const filename = star !== undefined ? decodeURIComponent(star) : plain?.replace(/%22/g, '"').replace(/%0A/gi, '\n').replace(/%0D/gi, '\r');
      if (filename !== undefined) {
        const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream';
        parts.push({ field, filename, contentType: type, content: Buffer.from(part.subarray(split + 4)) });
      }
    }
    at = next;
  }
  return parts;
}
