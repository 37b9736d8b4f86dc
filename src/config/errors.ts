/** Errors of the config room. */
import { ThreadgateError } from '../base/errors.ts';

export interface ConfigProblem {
  /** Where in the file, as `connectors[1].imap.port`; empty for the whole file. */
  path: string;
  message: string;
  /** Where in the text (1-based), for a problem of the YAML itself. */
  line?: number;
  column?: number;
}

/** The settings cannot be used; `problems` lists every one found, each with its path. */
export class ConfigInvalidError extends ThreadgateError {
  readonly code = 'TG_CONFIG_INVALID';
  readonly problems: readonly ConfigProblem[];
  readonly source: string;

  constructor(source: string, problems: ConfigProblem[]) {
    super(`${source}: ${problems.length} problem(s)\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
    this.source = source;
    this.problems = problems;
  }
}

export function formatProblem(p: ConfigProblem): string {
  const at = [p.line === undefined ? '' : `line ${p.line}, column ${p.column ?? 1}`, p.path].filter((s) => s !== '').join(' ');
  return at === '' ? p.message : `${at}: ${p.message}`;
}

/** `['connectors', 1, 'imap', 'port']` → `connectors[1].imap.port`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === 'number') return `${out}[${key}]`;
    return out === '' ? String(key) : `${out}.${String(key)}`;
  }, '');
}

/** True when `path` is `at` or lies below it (`connectors[0].imap` is under `connectors[0]`, not under `connectors[1]`). */
export function isAtOrUnder(path: string, at: string): boolean {
  return path === at || path.startsWith(`${at}.`) || path.startsWith(`${at}[`);
}
