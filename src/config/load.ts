/**
 * Loading settings: the YAML file named by `--config` or THREADGATE_CONFIG
 * (none: every default, which runs against the embedded sandbox), `${VAR}`
 * interpolation, every problem reported with its path (settings-check.ts),
 * then a deep freeze. The connector entries' own keys are checked by their
 * connectors: checked-settings.ts does both, for `config check` and `serve`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigInvalidError, type ConfigProblem } from './errors.ts';
import type { Settings } from './schema.ts';
import { checkSettings, type SettingsCheck } from './settings-check.ts';
import { readYaml } from './yaml-problems.ts';

export interface LoadedSettings {
  settings: Readonly<Settings>;
  /** The file read, or null when running on defaults. */
  file: string | null;
  /** Folder relative paths in the file (store.path, connector modules) resolve from. */
  baseDir: string;
}

export interface LoadOptions {
  path?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
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
  const check = checkSettingsText(from.text ?? '{}', from.env, from.cwd);
  if (check.settings === undefined) throw new ConfigInvalidError(from.source, check.problems);
  return { settings: deepFreeze(check.settings), file: from.file, baseDir: from.baseDir };
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

/** Every problem of the settings in `text` (YAML syntax first: then nothing else can be checked). */
export function checkSettingsText(text: string, env: Readonly<Record<string, string | undefined>>, cwd: string): SettingsCheck {
  const none = { entries: [], unsetPaths: [] };
  const yaml = readYaml(text);
  if (yaml.problems !== undefined) return { problems: yaml.problems, ...none };
  const raw: unknown = yaml.doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    const problems: ConfigProblem[] = [{ path: '', message: 'expected a mapping at the top level' }];
    return { problems, ...none };
  }
  return checkSettings(raw as Record<string, unknown>, env, cwd);
}

export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
