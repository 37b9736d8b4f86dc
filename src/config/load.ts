/**
 * Loading settings: the YAML file named by `--config` or THREADGATE_CONFIG
 * (none: every default, which runs against the embedded sandbox), `${VAR}`
 * interpolation, one zod parse reporting every problem with its path, then a
 * deep freeze. THREADGATE_STORE_PATH supplies `store.path` when the file does
 * not set it (the container points it at its /data volume).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigInvalidError, formatPath, type ConfigProblem } from './errors.ts';
import { interpolate } from './interpolate.ts';
import { Settings } from './schema.ts';

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

export function loadSettings(options: LoadOptions = {}): LoadedSettings {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const given = options.path ?? env.THREADGATE_CONFIG;
  if (given === undefined || given === '') {
    return { settings: parseSettings({}, env, '(defaults)', cwd), file: null, baseDir: cwd };
  }
  const file = resolve(cwd, given);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(err);
    throw new ConfigInvalidError(file, [{ path: '', message: reason }]);
  }
  return { settings: parseSettingsText(text, env, file, cwd), file, baseDir: dirname(file) };
}

export function parseSettingsText(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
  cwd: string = process.cwd(),
): Readonly<Settings> {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigInvalidError(
      source,
      doc.errors.map((e) => ({ path: '', message: `YAML: ${e.message.split('\n')[0]}` })),
    );
  }
  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigInvalidError(source, [{ path: '', message: 'expected a mapping at the top level' }]);
  }
  return parseSettings(raw, env, source, cwd);
}

function parseSettings(
  raw: unknown,
  env: Readonly<Record<string, string | undefined>>,
  source: string,
  cwd: string,
): Readonly<Settings> {
  const problems: ConfigProblem[] = [];
  const interpolated = interpolate(raw, env, problems);
  // THREADGATE_STORE_PATH names the store file when the settings do not; a relative one is read from the working folder.
  // THREADGATE_STORE_URL names a PostgreSQL store the same way.
  const storePath = env.THREADGATE_STORE_PATH;
  const storeUrl = env.THREADGATE_STORE_URL;
  let withEnv = storePath ? withStoreKey(interpolated, 'path', resolve(cwd, storePath)) : interpolated;
  if (storeUrl) withEnv = withStoreKey(withEnv, 'url', storeUrl);
  const storeKey = env.THREADGATE_STORE_ENCRYPTION_KEY;
  if (storeKey) withEnv = withStoreKey(withEnv, 'encryption_key', storeKey);
  const parsed = Settings.safeParse(withEnv);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigInvalidError(source, problems);
  return deepFreeze(parsed.data);
}

/** `raw` with `store.<key>` set to `value` where it has none (anything malformed is left for the schema to report). */
function withStoreKey(raw: unknown, key: 'path' | 'url' | 'encryption_key', value: string): unknown {
  if (!isMapping(raw)) return raw;
  const store = raw.store ?? {};
  if (!isMapping(store) || store[key] !== undefined) return raw;
  return { ...raw, store: { ...store, [key]: value } };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
