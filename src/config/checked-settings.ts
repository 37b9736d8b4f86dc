/**
 * The whole check of a settings file, as `config check` reports it and
 * `serve` refuses to start on it: the core settings and every connector
 * entry's own keys (by its connector's schema, src/connector/registry.ts),
 * all problems in one pass. An entry is checked by its connector even when
 * other parts of the file, or of the entry, have problems — as long as its
 * `type` (and `module`, if any) can be read.
 */
import { loadConnectors, type ConnectorEntryLike } from '../connector/registry.ts';
import { ConfigInvalidError, formatPath, type ConfigProblem } from './errors.ts';
import { checkSettingsText, deepFreeze, settingsSource, type LoadedSettings, type LoadOptions } from './load.ts';
import type { Settings } from './schema.ts';
import { withoutUnset } from './settings-check.ts';

export interface FullCheck {
  /** The settings, when neither they nor any connector entry has a problem. */
  settings?: Settings;
  problems: ConfigProblem[];
}

/** Every problem of the settings in `text`; connector modules named by a relative path resolve from `baseDir`. */
export async function checkSettingsWithConnectors(
  text: string,
  options: { env: Readonly<Record<string, string | undefined>>; cwd: string; baseDir: string },
): Promise<FullCheck> {
  const core = checkSettingsText(text, options.env, options.cwd);
  const readable = core.entries.map((entry) => (isReadableEntry(entry) ? entry : undefined));
  const { problems: entryProblems } = await loadConnectors(readable, options.baseDir);
  const own = entryProblems.map((p) => ({ path: formatPath(p.path), message: p.message }));
  const problems = [...core.problems, ...withoutUnset(own, core.unsetPaths)];
  return problems.length === 0 && core.settings !== undefined ? { settings: core.settings, problems } : { problems };
}

/** loadSettings with every connector entry checked too; one ConfigInvalidError lists every problem. */
export async function loadCheckedSettings(options: LoadOptions = {}): Promise<LoadedSettings> {
  const from = settingsSource(options);
  const check = await checkSettingsWithConnectors(from.text ?? '{}', { env: from.env, cwd: from.cwd, baseDir: from.baseDir });
  if (check.settings === undefined) throw new ConfigInvalidError(from.source, check.problems);
  return { settings: deepFreeze(check.settings), file: from.file, baseDir: from.baseDir, unread: [] };
}

/** An entry whose connector can be found: a mapping with a string `type`, and a string `module` if any. */
function isReadableEntry(entry: unknown): entry is ConnectorEntryLike {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return false;
  const { type, module } = entry as Record<string, unknown>;
  return typeof type === 'string' && type !== '' && (module === undefined || (typeof module === 'string' && module !== ''));
}
