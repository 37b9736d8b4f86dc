/**
 * How a stored file is handed to a browser. Anyone with a link opens it on the
 * gateway's own origin, so nothing in it may run there: a type a browser
 * would render as a page or run as script (HTML, XHTML, SVG, XML, JavaScript)
 * — and any type not known to be inert — is served as
 * application/octet-stream, always with `nosniff` and a CSP sandbox (the route
 * sets those). Only png, jpeg, gif and webp pictures are `inline` (shown in
 * the chat); everything else is an `attachment` (downloaded), its name given
 * both as a plain-ASCII `filename` and as RFC 5987 UTF-8 in `filename*`
 * (RFC 6266).
 */

const OCTET_STREAM = 'application/octet-stream';

/** Types served as they are: documents, pictures, sound and archives no browser runs as a page or a script. */
const INERT = new Set([
  'text/plain',
  'text/csv',
  'application/pdf',
  'application/rtf',
  'application/zip',
  'application/gzip',
  'application/x-7z-compressed',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/bmp',
  'image/tiff',
  'image/heic',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/mp4',
  'video/mp4',
  'video/webm',
  'video/quicktime',
]);
/** Office documents (OOXML, OpenDocument): zip archives to a browser. */
const INERT_PREFIXES = ['application/vnd.openxmlformats-officedocument.', 'application/vnd.oasis.opendocument.'];
const INLINE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const CHARSET = /;\s*charset="?([A-Za-z0-9._:-]{1,40})"?\s*(;|$)/i;

const baseType = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase();

/** The Content-Type to answer with for a stored type (a text's charset kept). */
export function servedContentType(stored: string): string {
  const base = baseType(stored);
  if (!INERT.has(base) && !INERT_PREFIXES.some((prefix) => base.startsWith(prefix))) return OCTET_STREAM;
  const charset = base.startsWith('text/') ? CHARSET.exec(stored)?.[1] : undefined;
  return charset === undefined ? base : `${base}; charset=${charset.toLowerCase()}`;
}

/** RFC 5987 `value-chars`: UTF-8, percent-encoded except attr-char. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The quoted `filename`: printable ASCII, with `"`, `\` and `%` (which some browsers decode) made `_`. */
function asciiFallback(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\%]/g, '_');
}

/** `attachment; filename="…"; filename*=UTF-8''…` (`inline` for the pictures a chat may show). */
export function contentDisposition(filename: string, servedType: string): string {
  const kind = INLINE.has(baseType(servedType)) ? 'inline' : 'attachment';
  return `${kind}; filename="${asciiFallback(filename)}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}
