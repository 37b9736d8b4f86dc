/**
 * Documented path templates (`/api/pub/v1/orgs/<organization_id>/channels/<channel_id>`)
 * as matchers: literal segments must be equal, `<name>` takes one segment,
 * and a trailing `*` (allow-lists only) takes the rest. A parameter given in
 * `fixed` matches only that value (an allow-list's `<organization_id>`: the
 * configured organisation). Segments are compared as sent, escapes and all;
 * the proxy refuses paths whose segments could mean something else first
 * (path-check.ts).
 */
export interface PathPattern {
  template: string;
  segments: string[];
}

export function compilePattern(template: string): PathPattern {
  return { template, segments: template.split('/').filter((s) => s !== '') };
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** The parameters of `path` (or its segments, split once by the caller) under `pattern`, or undefined when it does not match. */
export function matchPattern(
  pattern: PathPattern,
  path: string | readonly string[],
  fixed: Readonly<Record<string, string>> = {},
): Record<string, string> | undefined {
  const given = typeof path === 'string' ? splitPath(path) : path;
  const params: Record<string, string> = {};
  const { segments } = pattern;
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i] as string;
    if (want === '*' && i === segments.length - 1) return params;
    const got = given[i];
    if (got === undefined) return undefined;
    if (want.startsWith('<') && want.endsWith('>')) {
      const name = want.slice(1, -1);
      if (fixed[name] !== undefined && fixed[name] !== got) return undefined;
      params[name] = got;
    } else if (want !== got) return undefined;
  }
  return given.length === segments.length ? params : undefined;
}
