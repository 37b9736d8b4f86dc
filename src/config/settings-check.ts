/**
 * Checking the settings as read from the file, every problem in one pass:
 * `${VAR}` interpolation, then each section on its own schema (a bad
 * `server.port` does not hide a bad `jobs.retry_for`), then the rules across
 * sections on the keys they read, when those are valid, whatever else is
 * wrong (a bad `platform.token_type` does not hide a missing
 * `platform.token`). An unset environment variable is
 * reported once, at the path that uses it, and nothing else there (not also
 * "expected number, received string").
 *
 * THREADGATE_STORE_PATH, THREADGATE_STORE_URL and THREADGATE_STORE_ENCRYPTION_KEY
 * supply `store.path`, `store.url` and `store.encryption_key` when the file
 * does not set them (the container points the path at its /data volume; a
 * relative path is read from the working folder).
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { formatPath, isAtOrUnder, type ConfigProblem } from './errors.ts';
import { interpolate, type KeptUnset } from './interpolate.ts';
import { PlatformSettings, ServerSettings, Settings, SettingsSections } from './schema.ts';
import { settingsRuleProblems, type RuleInput } from './settings-rules.ts';
import { checkValue, issueProblems, unknownKeyMessage } from './zod-problems.ts';

export interface SettingsCheck {
  /** The settings, when there is no problem. */
  settings?: Settings;
  problems: ConfigProblem[];
  /** The connector entries as written and interpolated, for their connectors' own checks (empty unless a list). */
  entries: unknown[];
  /** Paths that use an unset environment variable: any other problem at or under one is its consequence. */
  unsetPaths: string[];
  /** With `needs`: the paths outside it whose unset variables were kept as written (`${VAR}`), each with its variable. */
  unread?: ConfigProblem[];
}

export interface CheckOptions {
  /**
   * The paths the reader needs (`store`, `server.port`): an unset variable elsewhere is not a problem; its
   * placeholder stays as written and the path is listed in `unread`. Absent: every path is needed.
   */
  needs?: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;
type Section = keyof typeof SettingsSections.shape;

/** Checks `raw`, the file's top-level mapping. */
export function checkSettings(raw: Record<string, unknown>, env: Env, cwd: string, options: CheckOptions = {}): SettingsCheck {
  const unset: ConfigProblem[] = [];
  const { needs } = options;
  const kept: KeptUnset | undefined = needs && { keep: (path) => !needs.some((at) => isAtOrUnder(path, at) || isAtOrUnder(at, path)), kept: [] };
  const withEnv = withStoreEnv(interpolate(raw, env, unset, [], kept) as Record<string, unknown>, env, cwd);
  const unread = kept ? { unread: kept.kept } : {};
  const problems: ConfigProblem[] = [];
  const sections = Object.keys(SettingsSections.shape);
  for (const key of Object.keys(withEnv)) {
    if (!sections.includes(key)) problems.push({ path: key, message: unknownKeyMessage(key, sections) });
  }
  const usable: Partial<Record<Section, unknown>> = {};
  for (const [key, schema] of Object.entries(SettingsSections.shape) as [Section, (typeof SettingsSections.shape)[Section]][]) {
    const checked = checkValue(schema, withEnv[key]);
    if (checked.success) usable[key] = checked.data;
    else {
      usable[key] = checked.usable;
      for (const p of checked.problems) problems.push({ path: formatPath([key, ...p.path]), message: p.message });
    }
  }
  const entries = Array.isArray(withEnv.connectors) ? (withEnv.connectors as unknown[]) : [];
  const rules = settingsRuleProblems({
    platform: usable.platform ?? ruleView(RULE_KEYS.platform, withEnv.platform),
    server: usable.server ?? ruleView(RULE_KEYS.server, withEnv.server),
    connectors: entries,
  } as RuleInput);
  for (const p of rules) problems.push({ path: formatPath(p.path), message: p.message });

  const unsetPaths = unset.map((p) => p.path);
  const all = [...unset, ...withoutUnset(problems, unsetPaths)];
  if (all.length > 0) return { problems: all, entries, unsetPaths, ...unread };
  const parsed = Settings.safeParse(withEnv); // the sections and rules once more, as one value
  if (parsed.success) return { settings: parsed.data, problems: [], entries, unsetPaths, ...unread };
  const rest = issueProblems(Settings, parsed.error.issues).map((p) => ({ path: formatPath(p.path), message: p.message }));
  return { problems: rest, entries, unsetPaths, ...unread };
}

/** The keys the rules read of a section, each checked as in the section: a bad key elsewhere in it does not stop them. */
const RULE_KEYS = {
  platform: z.looseObject(PlatformSettings.pick({ url: true, organization_id: true, token: true }).shape),
  server: z.looseObject(ServerSettings.pick({ public_url: true }).shape),
};

function ruleView(schema: z.ZodType, section: unknown): unknown {
  const parsed = schema.safeParse(section ?? {});
  return parsed.success ? parsed.data : undefined;
}

/** `problems` without those an unset environment variable explains. */
export function withoutUnset<P extends ConfigProblem>(problems: readonly P[], unsetPaths: readonly string[]): P[] {
  return problems.filter((p) => !unsetPaths.some((at) => isAtOrUnder(p.path, at)));
}

function withStoreEnv(settings: Record<string, unknown>, env: Env, cwd: string): Record<string, unknown> {
  let out = settings;
  if (env.THREADGATE_STORE_PATH) out = withStoreKey(out, 'path', resolve(cwd, env.THREADGATE_STORE_PATH));
  if (env.THREADGATE_STORE_URL) out = withStoreKey(out, 'url', env.THREADGATE_STORE_URL);
  if (env.THREADGATE_STORE_ENCRYPTION_KEY) out = withStoreKey(out, 'encryption_key', env.THREADGATE_STORE_ENCRYPTION_KEY);
  return out;
}

/** `settings` with `store.<key>` set to `value` where it has none (anything malformed is left for the schema to report). */
function withStoreKey(settings: Record<string, unknown>, key: 'path' | 'url' | 'encryption_key', value: string): Record<string, unknown> {
  const store = settings.store ?? {};
  if (!isMapping(store) || store[key] !== undefined) return settings;
  return { ...settings, store: { ...store, [key]: value } };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
