/**
 * Path templates (`/api/pub/v1/orgs/<organization_id>/channels/<channel_id>`)
 * split into segments, and allow-list patterns as matchers: literal segments
 * must be equal, `<name>` takes one segment, and a trailing `*` takes the
 * rest. A parameter given in `fixed` matches only that value (an allow-list's
 * `<organization_id>`: the configured organisation). Segments are compared as
 * sent, escapes and all; the proxy refuses paths whose segments could mean
 * something else first (path-check.ts). The route table (route-table.ts)
 * matches documented templates itself, as a tree.
 *
 * `compileAllowPattern` turns a template into what a request is checked
 * against at start-up (fixed parameters already put in), so a check is a
 * length test and one string comparison per literal segment.
 */

/** The non-empty segments of `path`, in order. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 0x2f) {
      if (i > start) out.push(path.slice(start, i));
      start = i + 1;
    }
  }
  return out;
}

export const isParameter = (segment: string): boolean => segment.startsWith('<') && segment.endsWith('>');

/** An allow-list pattern compiled: per segment the literal it must equal, or null for any one segment. */
export interface AllowPattern {
  template: string;
  parts: (string | null)[];
  /** A trailing `*`: any number of further segments, none included. */
  rest: boolean;
}

export function compileAllowPattern(template: string, fixed: Readonly<Record<string, string>>): AllowPattern {
  const segments = splitPath(template);
  const rest = segments.at(-1) === '*';
  if (rest) segments.pop();
  const parts = segments.map((s) => (isParameter(s) ? (fixed[s.slice(1, -1)] ?? null) : s));
  return { template, parts, rest };
}

/** Whether the path's segments match the compiled pattern (what matchPattern answers, without the parameters). */
export function allows(pattern: AllowPattern, segments: readonly string[]): boolean {
  const { parts } = pattern;
  if (pattern.rest ? segments.length < parts.length : segments.length !== parts.length) return false;
  for (let i = 0; i < parts.length; i++) {
    const want = parts[i];
    if (want !== null && want !== segments[i]) return false;
  }
  return true;
}
