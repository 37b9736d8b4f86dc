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
  const problem = problemOf(path);
  if (problem !== undefined) throw new PathInvalidError(problem);
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
