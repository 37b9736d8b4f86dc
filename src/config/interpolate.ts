/**
 * `${VAR}` interpolation of string values from the environment, applied to the
 * parsed YAML (never to its text, so a value cannot inject structure).
 * `${VAR:-fallback}` uses the fallback when VAR is unset or empty; `$${` is a
 * literal `${`. An unset variable without fallback is a problem at its path —
 * unless `unset.keep` says the path is not needed: then the placeholder stays
 * as written (`${HELPDESK_IN_SECRET}`) and the path is listed in `unset.kept`.
 */
import { formatPath, type ConfigProblem } from './errors.ts';

/** Unset variables a reader does not need: kept as written, listed instead of refused. */
export interface KeptUnset {
  /** Whether an unset variable at this path (`connectors[0].inbound_secret`) may stay unread. */
  keep(path: string): boolean;
  /** Each such path with its variable's name, filled by the interpolation. */
  kept: ConfigProblem[];
}

const PLACEHOLDER = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function interpolate(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: PropertyKey[] = [],
  unset?: KeptUnset,
): unknown {
  if (typeof value === 'string') return interpolateString(value, env, problems, path, unset);
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, problems, [...path, i], unset));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolate(v, env, problems, [...path, k], unset)]),
    );
  }
  return value;
}

function interpolateString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  problems: ConfigProblem[],
  path: PropertyKey[],
  unset?: KeptUnset,
): string | number | boolean {
  let whole = false;
  const out = text.replace(PLACEHOLDER, (match, name: string | undefined, fallback: string | undefined, offset: number) => {
    if (name === undefined) return '${'; // `$${` is a literal `${`
    whole = offset === 0 && match.length === text.length;
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    const problem = { path: formatPath(path), message: `environment variable ${name} is not set` };
    if (unset?.keep(problem.path)) {
      unset.kept.push(problem);
      return match;
    }
    problems.push(problem);
    return '';
  });
  // A value that is exactly one placeholder takes the type YAML would give it,
  // so `port: ${PORT}` is a number and `secure: ${TLS}` a boolean.
  if (whole) return coerceScalar(out);
  return out;
}

function coerceScalar(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(text) && text.length < 16) return Number(text);
  return text;
}
