/**
 * The proxy's path rule. The path a caller sends is the path the platform
 * gets, byte for byte, so it must mean the same thing to every server on the
 * way: one that removes dot segments, decodes `%2f`, turns `\` into `/`,
 * merges `//` or cuts `;parameters` must not be able to make it name another
 * resource than the one the allow-list and the route table checked.
 *
 * Refused: a path not starting with `/`; a raw backslash; a broken percent
 * escape; an empty segment (`//` — one trailing slash is kept, the documents
 * use it); a segment that is `.` or `..` or empty once percent escapes are
 * decoded (once or twice) and a `;parameter` is cut; a segment that holds a
 * `/`, `\`, `#` or `?` once decoded (once or twice); a raw `#` (a server
 * that reads the target as a URL cuts the path there), white space, control
 * characters, `"`, `<` or `>`.
 */
import { PathInvalidError } from '../errors.ts';

const ESCAPE = /%([0-9a-f]{2})/gi;
/** Raw characters a server may cut or split a path at (`#` starts a fragment), or that no path may hold. */
const CUTTING = /[#\s"<>\x00-\x1f\x7f]/;
const BROKEN_ESCAPE = /%(?![0-9a-f]{2})/i;

const decoded = (segment: string): string => segment.replace(ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Throws PathInvalidError when `path` (without its query) breaks the rule. */
export function checkProxyPath(path: string): void {
  if (plainlyFine(path)) return;
  const problem = problemOf(path);
  if (problem !== undefined) throw new PathInvalidError(problem);
}

const SLASH = 0x2f;
const DOT = 0x2e;

/**
 * One pass over the common path: only characters that need no decoding (no
 * `%`, `;`, `\\`, nothing cutting), no empty segment but one trailing slash,
 * no `.` or `..` segment. True proves the path fine; false says only that the
 * full rule (problemOf) must decide.
 */
function plainlyFine(path: string): boolean {
  const n = path.length;
  if (n === 0 || path.charCodeAt(0) !== SLASH) return false;
  let start = 1; // the first character of the current segment
  for (let i = 1; i <= n; i++) {
    const c = i === n ? SLASH : path.charCodeAt(i);
    if (c === SLASH) {
      const length = i - start;
      if (length === 0 && !(i === n && start > 1)) return false; // `//`, or a lone `/` path is left to the full rule
      if (length === 1 && path.charCodeAt(start) === DOT) return false;
      if (length === 2 && path.charCodeAt(start) === DOT && path.charCodeAt(start + 1) === DOT) return false;
      start = i + 1;
    } else if (c <= 0x20 || c >= 0x7f || c === 0x22 || c === 0x23 || c === 0x25 || c === 0x3b || c === 0x3c || c === 0x3e || c === 0x5c) {
      return false; // white space and controls, non-ASCII, " # % ; < > \\
    }
  }
  return true;
}

function problemOf(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must start with /';
  if (path.includes('\\')) return 'may not contain a backslash';
  const raw = CUTTING.exec(path);
  if (raw) return `may not contain ${JSON.stringify(raw[0])} unencoded`;
  if (BROKEN_ESCAPE.test(path)) return 'has a % that does not start a two-digit hex escape';
  const segments = path.slice(1).split('/');
  for (const [i, segment] of segments.entries()) {
    if (segment === '') {
      if (i > 0 && i === segments.length - 1) continue; // one trailing slash
      return 'has an empty segment (//)';
    }
    const once = decoded(segment);
    for (const form of [once, decoded(once)]) {
      if (/[/\\]/.test(form)) return `segment ${JSON.stringify(segment)} holds an encoded / or \\`;
      if (/[#?]/.test(form)) return `segment ${JSON.stringify(segment)} holds an encoded # or ?`;
      const bare = form.split(';', 1)[0];
      if (bare === '.' || bare === '..') return `segment ${JSON.stringify(segment)} is a dot segment`;
      if (bare === '') return `segment ${JSON.stringify(segment)} is empty before its ;parameter`;
    }
  }
  return undefined;
}
