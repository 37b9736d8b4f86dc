/**
 * A zod schema's verdict on part of the settings, as problems an operator can
 * act on: one per unknown key, at that key's path, with "did you mean …?";
 * a union that failed (`auth: imap | { type: oauth2, … }`) reported through
 * the one option the value was evidently meant for; every other issue at its
 * path with zod's message.
 *
 * Unknown keys are then taken out and the value checked again: what parses
 * then is still usable by the rules across sections (a misspelt
 * `platform.tokn` does not hide that `platform.token` is required). Nothing
 * else is taken out or filled in: a rule never judges a value the operator
 * did not write.
 */
import type { z } from 'zod';
import { formatPath, isAtOrUnder } from './errors.ts';
import { keysAt } from './schema-walk.ts';
import { didYouMean } from './suggest.ts';

/** A problem at a path from the part checked (`['imap', 'port']`). */
export interface PathProblem {
  path: PropertyKey[];
  message: string;
}

export interface CheckOptions {
  /** Keys besides the schema's own that may stand at the top (a connector entry's name, type, room_id…), for suggestions. */
  rootKeys?: readonly string[];
}

type Issue = z.core.$ZodIssue;
/** zod's names of types as YAML calls them. */
const YAML_KIND: Record<string, string> = { object: 'a mapping', array: 'a list', string: 'a string', number: 'a number', int: 'a whole number', boolean: 'true or false' };
/** Known keys are listed with an unknown one when there are at most this many. */
const LIST_KNOWN_UP_TO = 12;

/**
 * The parsed value, or every problem; with problems, `usable` is the value
 * parsed once the unknown keys were taken out, when that was their only
 * fault (the rules across sections can still read it).
 */
export type CheckResult<T> = { success: true; data: T } | { success: false; problems: PathProblem[]; usable?: T };

/** Every problem of `input` against `schema`, or its parsed value. */
export function checkValue<S extends z.ZodType>(schema: S, input: unknown, options: CheckOptions = {}): CheckResult<z.output<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { success: true, data: parsed.data };
  const found = foundIn(schema, parsed.error.issues, options, []);
  const problems = found.map(({ path, message }) => ({ path, message }));
  const unknown = found.filter((p) => p.unknownKey).map((p) => p.path);
  const without = unknown.length === 0 ? undefined : withoutKeys(input, unknown);
  if (without === undefined) return { success: false, problems };
  const again = schema.safeParse(without);
  if (again.success) return { success: false, problems, usable: again.data };
  // zod runs a rule beside an unknown key; should it ever not, what the rule says is reported too, never twice at a path.
  const reported = problems.map((p) => formatPath(p.path));
  for (const p of issueProblems(schema, again.error.issues, options)) {
    if (!reported.some((at) => isAtOrUnder(formatPath(p.path), at))) problems.push(p);
  }
  return { success: false, problems };
}

/** zod's issues as problems, unions opened up and unknown keys one by one. */
export function issueProblems(schema: z.core.$ZodType, issues: readonly Issue[], options: CheckOptions = {}): PathProblem[] {
  return foundIn(schema, issues, options, []).map(({ path, message }) => ({ path, message }));
}

/** A problem as found, marked when it is an unknown key (which a later round takes out). */
interface Found extends PathProblem {
  unknownKey: boolean;
}

/** `at` is the base path of `issues` (those of a union's option are relative to the union). */
function foundIn(schema: z.core.$ZodType, issues: readonly Issue[], options: CheckOptions, at: readonly PropertyKey[]): Found[] {
  return issues.flatMap((issue): Found[] => {
    const path = [...at, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = [...keysAt(schema, path), ...(path.length === 0 ? (options.rootKeys ?? []) : [])];
      return issue.keys.map((key) => ({ path: [...path, key], message: unknownKeyMessage(key, known), unknownKey: true }));
    }
    if (issue.code === 'invalid_union') {
      const meant = meantOption(issue.errors);
      if (meant !== undefined) return foundIn(schema, meant, options, path);
    }
    // zod's "Invalid input: expected object, received undefined" for a key left out
    const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
    return [{ path, message: missing ? `required (${YAML_KIND[issue.expected] ?? issue.expected})` : issue.message, unknownKey: false }];
  });
}

/** What to say of an unknown key: the known one it is close to, else (when few) the known ones. */
export function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = didYouMean(key, known);
  if (suggestion !== '') return `unknown key${suggestion}`;
  const unique = [...new Set(known)];
  return unique.length > 0 && unique.length <= LIST_KNOWN_UP_TO ? `unknown key (known here: ${unique.join(', ')})` : 'unknown key';
}

/**
 * The issues of the one option of a union the value was meant for: every
 * other option refused the value as a whole (wrong type, wrong literal). None
 * when no option, or more than one, came that close.
 */
function meantOption(options: readonly (readonly Issue[])[]): Issue[] | undefined {
  const close = options.filter(
    (issues) => issues.length > 0 && !issues.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')),
  );
  return close.length === 1 ? [...close[0]!] : undefined;
}

/** A copy of `value` without the keys at `paths`, or undefined when none of them is there. */
function withoutKeys(value: unknown, paths: readonly PropertyKey[][]): unknown {
  const copy = structuredClone(value);
  let removed = false;
  for (const path of paths) {
    const parent = path.slice(0, -1).reduce<unknown>((v, key) => (isContainer(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined), copy);
    const key = path[path.length - 1];
    if (isContainer(parent) && !Array.isArray(parent) && typeof key === 'string' && Object.hasOwn(parent, key)) {
      delete (parent as Record<string, unknown>)[key];
      removed = true;
    }
  }
  return removed ? copy : undefined;
}

const isContainer = (value: unknown): value is object => value !== null && typeof value === 'object';
