/**
 * The metric names a PromQL expression reads, with the label names its
 * matchers name, and the metric families of a Prometheus text scrape: enough
 * to check that the alerts and the dashboard of deploy/ read only series the
 * gateway exports. Not a PromQL parser: strings, grouping clauses
 * (`by (…)`, `on (…)`…), ranges and Grafana variables are taken out, and
 * every identifier left that is neither a function (followed by `(`) nor a
 * keyword is a metric name. A selector without a name (`{__name__=…}`) is
 * refused rather than missed.
 */

export interface MetricRef {
  name: string;
  /** The label names its matchers name (`{connector=~"$c", status="200"}` → connector, status). */
  labels: string[];
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);
const STRINGS = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g;
const GROUPING = /\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g;
const TOKENS = /(\d[\w.]*)|([A-Za-z_:][\w:]*)(\s*)(\{[^}]*\})?|(\{[^}]*\})/g;
const MATCHER_LABEL = /([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g;

export function metricRefs(expr: string): MetricRef[] {
  const bare = expr
    .replace(STRINGS, '""')
    .replace(/#[^\n]*/g, ' ') // comments (strings, where a # could sit, are gone)
    .replace(GROUPING, ' ')
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries, `[$__rate_interval]` too
    .replace(/\$\{[^}]*\}|\$\w+/g, ' '); // Grafana variables outside strings
  const refs: MetricRef[] = [];
  for (const m of bare.matchAll(TOKENS)) {
    const [, number, name, space, matchers, nameless] = m;
    if (number !== undefined) continue;
    if (nameless !== undefined) throw new Error(`a selector without a metric name is not supported: ${nameless} in ${expr}`);
    if (matchers === undefined && bare[m.index + name!.length + space!.length] === '(') continue; // a function or an aggregation
    if (KEYWORDS.has(name!.toLowerCase())) continue;
    const labels = matchers === undefined ? [] : [...matchers.matchAll(MATCHER_LABEL)].map((l) => l[1]!);
    refs.push({ name: name!, labels });
  }
  return refs;
}

/** The names a Grafana variable query reads: `label_values(metric{…}, label)` or a PromQL query. */
export function variableRefs(query: string): MetricRef[] {
  const values = /^\s*label_values\(\s*(.+?)\s*,\s*(\w+)\s*\)\s*$/.exec(query);
  if (!values) return metricRefs(query);
  return metricRefs(values[1]!).map((r) => ({ ...r, labels: [...r.labels, values[2]!] }));
}

export interface Family {
  type: string;
  /** Each sample name printed under the family, with every label name seen on it. */
  samples: Map<string, Set<string>>;
}

/** The families of a scrape in Prometheus text format, by the name of their `# TYPE` line. */
export function scrapedFamilies(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      families.set(type[1]!, (current = { type: type[2]!, samples: new Map() }));
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s/.exec(line);
    if (!sample || current === undefined) continue;
    const labels = current.samples.get(sample[1]!) ?? new Set<string>();
    for (const l of (sample[2] ?? '').matchAll(/([A-Za-z_]\w*)="/g)) labels.add(l[1]!);
    current.samples.set(sample[1]!, labels);
  }
  return families;
}

const SUFFIXES: Record<string, readonly string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

/** The family a name reads: itself, or a histogram's or summary's with the series suffix stripped; undefined if none. */
export function familyOf(families: Map<string, Family>, name: string): { family: string; type: string } | undefined {
  const own = families.get(name);
  if (own !== undefined && !(own.type in SUFFIXES && !SUFFIXES[own.type]!.includes(''))) return { family: name, type: own.type };
  for (const [type, suffixes] of Object.entries(SUFFIXES)) {
    for (const suffix of suffixes.filter((s) => s !== '' && name.endsWith(s))) {
      const base = name.slice(0, -suffix.length);
      if (families.get(base)?.type === type) return { family: base, type };
    }
  }
  return undefined;
}

/** What is wrong with `refs` against a scrape: a name not exported, no series of it, a matcher's label it never has. */
export function problemsOf(refs: readonly MetricRef[], families: Map<string, Family>, targetLabels: readonly string[] = ['instance', 'job']): string[] {
  const problems: string[] = [];
  for (const ref of refs) {
    const found = familyOf(families, ref.name);
    if (found === undefined) {
      problems.push(`${ref.name}: not exported`);
      continue;
    }
    const seen = families.get(found.family)!.samples.get(ref.name);
    if (seen === undefined) {
      problems.push(`${ref.name}: no series in the scrape`);
      continue;
    }
    for (const label of ref.labels) if (!seen.has(label) && !targetLabels.includes(label)) problems.push(`${ref.name}: no label ${label}`);
  }
  return [...new Set(problems)];
}
