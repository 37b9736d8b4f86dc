/**
 * Loading settings: the YAML file named by `--config` or THREADGATE_CONFIG
 * (none: every default, which runs against the embedded sandbox), `${VAR}`
 * interpolation, every problem reported with its path (settings-check.ts),
 * then a deep freeze. The connector entries' own keys are checked by their
 * connectors: checked-settings.ts does both, for `config check` and `serve`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigInvalidError, isAtOrUnder, type ConfigProblem } from './errors.ts';
import { checkNeededSettings } from './partial-settings.ts';
import type { Settings } from './schema.ts';
import { checkSettings, type SettingsCheck } from './settings-check.ts';
import { readYaml } from './yaml-problems.ts';

export interface LoadedSettings {
  settings: Readonly<Settings>;
  /** The file read, or null when running on defaults. */
  file: string | null;
  /** Folder relative paths in the file (store.path, connector modules) resolve from. */
  baseDir: string;
  /**
   * Loaded with `needs`: the paths outside them whose `${VAR}` is unset, each with its variable. Their values
   * are placeholders (or defaults), never to be used: `requireRead` says so when a reader needs one after all.
   */
  unread: readonly ConfigProblem[];
}

export interface LoadOptions {
  path?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /**
   * The paths the reader needs (`store`; `server.port`): an unset `${VAR}` elsewhere is not a problem, only
   * listed in `unread` (partial-settings.ts). Absent: every path is needed, as `serve` and `config check` need.
   */
  needs?: readonly string[];
}

/** The settings text of a load: the file named, or none (defaults). */
export interface SettingsSource {
  text: string | null;
  file: string | null;
  /** How problems name it: the file, or `(defaults)`. */
  source: string;
  baseDir: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export function loadSettings(options: LoadOptions = {}): LoadedSettings {
  const from = settingsSource(options);
  const check = checkSettingsText(from.text ?? '{}', from.env, from.cwd, options.needs);
  if (check.settings === undefined) throw new ConfigInvalidError(from.source, check.problems);
  return { settings: deepFreeze(check.settings), file: from.file, baseDir: from.baseDir, unread: check.unread ?? [] };
}

/** Refuses (ConfigInvalidError) settings loaded with `needs` when a value at or under one of `paths` was left unread. */
export function requireRead(loaded: LoadedSettings, paths: readonly string[]): void {
  const missing = loaded.unread.filter((u) => paths.some((at) => isAtOrUnder(u.path, at) || isAtOrUnder(at, u.path)));
  if (missing.length > 0) throw new ConfigInvalidError(loaded.file ?? '(defaults)', missing);
}

/** Which file a load reads, and its text; a file that cannot be read is a ConfigInvalidError. */
export function settingsSource(options: LoadOptions = {}): SettingsSource {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const given = options.path ?? env.THREADGATE_CONFIG;
  if (given === undefined || given === '') return { text: null, file: null, source: '(defaults)', baseDir: cwd, env, cwd };
  const file = resolve(cwd, given);
  try {
    return { text: readFileSync(file, 'utf8'), file, source: file, baseDir: dirname(file), env, cwd };
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(err);
    throw new ConfigInvalidError(file, [{ path: '', message: reason }]);
  }
}

export function parseSettingsText(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
  cwd: string = process.cwd(),
): Readonly<Settings> {
  const check = checkSettingsText(text, env, cwd);
  if (check.settings === undefined) throw new ConfigInvalidError(source, check.problems);
  return deepFreeze(check.settings);
}

/** Every problem of the settings in `text` (YAML syntax first: then nothing else can be checked); `needs`: partial-settings.ts. */
export function checkSettingsText(text: string, env: Readonly<Record<string, string | undefined>>, cwd: string, needs?: readonly string[]): SettingsCheck {
  const none = { entries: [], unsetPaths: [] };
  const yaml = readYaml(text);
  if (yaml.problems !== undefined) return { problems: yaml.problems, ...none };
  const raw: unknown = yaml.doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const problems: ConfigProblem[] = [{ path: '', message: 'expected a mapping at the top level' }];
    return { problems, ...none };
  }
  return needs === undefined ? checkSettings(raw as Record<string, unknown>, env, cwd) : checkNeededSettings(raw as Record<string, unknown>, env, cwd, needs);
}

export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
