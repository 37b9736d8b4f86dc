/**
 * A reload of the settings file (SIGHUP to `serve`). The file is read and
 * checked as at start; a file with problems changes nothing (each problem is
 * logged). A changed `platform.token` or `platform.token_type` is applied to
 * the running platform client (the bridge's calls and the proxy's) and every
 * connector whose posts are paused is re-checked at once. A connector's own
 * keys go to the connector when it takes them, and its `platform_concurrency`
 * to the job runner, which reads it at every claim; the `health` section to
 * the judgement of failing deliveries. Every other change
 * is named in the log as needing a restart. Values are never logged, only
 * the paths of what changed.
 */
import type { AuthPause } from '../bridge/auth-pause.ts';
import type { DeliveryHealth } from '../bridge/delivery-health.ts';
import { ConfigInvalidError } from '../config/errors.ts';
import { checkOwnKeys, type LoadedConnectors } from '../connector/registry.ts';
import type { ConnectorRuntime } from '../connector/runtime.ts';
import { loadSettings } from '../config/load.ts';
import type { Settings } from '../config/schema.ts';
import type { Logger } from '../log/logger.ts';
import type { PlatformHttpClient } from '../platform/http-client.ts';

const TOKEN_PATHS = ['platform.token', 'platform.token_type'];
/** The gateway's own keys of a connector entry that apply without a restart: read from the settings in force at every use. */
const LIVE_ENTRY_KEY = /^connectors\.(\d+)\.(platform_concurrency)$/;

/** The running connectors, as a reload reaches them. */
export interface ReloadableConnectors {
  /** The entry's own keys checked by its connector's schema; problems name keys within the entry. */
  check(entry: Readonly<Record<string, unknown>>): { config: unknown } | { problems: { path: string; message: string }[] };
  /** Hands the checked config to the running connector: the keys (dotted, within the entry) it applied. */
  apply(name: string, config: unknown): string[];
}

/** The running connectors of `runtime`, checked by the definitions loaded at start. */
export function reloadableConnectors(loaded: LoadedConnectors, runtime: ConnectorRuntime): ReloadableConnectors {
  return {
    check: (entry) => checkOwnKeys(loaded.definitions.get(String(entry.type)), entry),
    apply: (name, config) => runtime.reconfigure(name, config),
  };
}

export interface ReloadTarget {
  /** The settings file the gateway started from; null when it runs on defaults. */
  file: string | null;
  /** The settings in force: what a reload is compared with (updated by each reload). */
  settings: Readonly<Settings>;
  /** The embedded sandbox has its own token: platform.token is not used. */
  embedded: boolean;
  http: PlatformHttpClient;
  pause: AuthPause;
  connectors?: ReloadableConnectors;
  /** Woken after a connector's `platform_concurrency` changed, so that its lanes claim what a higher one lets them. */
  runner?: { notify(): void };
  /** Takes the `health` section's rules at once. */
  deliveryHealth?: Pick<DeliveryHealth, 'rules'>;
}

export interface ReloadOutcome {
  applied: string[];
  restartNeeded: string[];
}

/** Dotted paths of the leaves that differ between `a` and `b` (array entries by index). */
export function changedPaths(a: unknown, b: unknown, at = ''): string[] {
  if (isBranch(a) && isBranch(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) => changedPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at === '' ? k : `${at}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [at];
}

const isBranch = (v: unknown): v is object => typeof v === 'object' && v !== null;

/**
 * `reloadedElsewhere`: connectors whose changed keys another part applies (`serve --watch` makes a connector of its own
 * module anew from its new entry): their keys count as applied, not as needing a restart.
 */
export function reloadSettings(target: ReloadTarget, logger: Logger, reloadedElsewhere: ReadonlySet<string> = new Set()): ReloadOutcome | undefined {
  if (target.file === null) {
    logger.warn({ event: 'settings_reload_skipped' }, 'SIGHUP: no settings file to reload (the gateway runs on defaults)');
    return undefined;
  }
  let next: Readonly<Settings>;
  try {
    next = loadSettings({ path: target.file }).settings;
  } catch (err) {
    const problems = err instanceof ConfigInvalidError ? err.problems : [{ path: '', message: String(err) }];
    logger.error({ event: 'settings_reload_failed', file: target.file, problems }, 'SIGHUP: the settings file has problems; nothing changed');
    return undefined;
  }
  const changed = changedPaths(target.settings, next);
  const entries = checkConnectorEntries(target, next, changed);
  if ('problems' in entries) {
    logger.error({ event: 'settings_reload_failed', file: target.file, problems: entries.problems }, 'SIGHUP: the settings file has problems; nothing changed');
    return undefined;
  }
  const tokenChanged = !target.embedded && changed.some((p) => TOKEN_PATHS.includes(p));
  const applied = tokenChanged ? changed.filter((p) => TOKEN_PATHS.includes(p)) : [];
  if (tokenChanged) {
    const { token, token_type: tokenType } = next.platform;
    try {
      target.http.setCredentials(token ?? '', tokenType);
    } catch (err) {
      logger.error({ event: 'settings_reload_failed', file: target.file, err }, 'SIGHUP: the new platform token cannot be used; nothing changed');
      return undefined;
    }
    target.settings = { ...target.settings, platform: { ...target.settings.platform, token, token_type: tokenType } };
    target.pause.recheckNow();
  }
  applied.push(...applyConnectorEntries(target, next, entries.checked, changed));
  applied.push(...applyLiveEntryKeys(target, next, changed));
  applied.push(...applyHealth(target, next, changed));
  const elsewhere = new Set(next.connectors.flatMap((e, i) => (reloadedElsewhere.has(e.name) ? [`connectors.${i}.`] : [])));
  applied.push(...changed.filter((p) => !applied.includes(p) && [...elsewhere].some((prefix) => p.startsWith(prefix))));
  const restartNeeded = changed.filter((p) => !applied.includes(p));
  const needRestart = `${restartNeeded.join(', ')} ${restartNeeded.length === 1 ? 'needs' : 'need'} a restart`;
  logger.info(
    { event: 'settings_reloaded', file: target.file, applied, restart_needed: restartNeeded },
    applied.length > 0
      ? `SIGHUP: applied ${applied.join(', ')}${restartNeeded.length > 0 ? `; ${needRestart}` : ''}`
      : restartNeeded.length > 0
        ? `SIGHUP: nothing applied; ${needRestart}`
        : 'SIGHUP: the settings file is unchanged',
  );
  return { applied, restartNeeded };
}

interface CheckedEntry {
  index: number;
  name: string;
  config: unknown;
}

/** Each connector entry that changed, still of the same name and type, checked by its schema; problems fail the reload. */
function checkConnectorEntries(target: ReloadTarget, next: Readonly<Settings>, changed: readonly string[]): { checked: CheckedEntry[] } | { problems: { path: string; message: string }[] } {
  const checked: CheckedEntry[] = [];
  const problems: { path: string; message: string }[] = [];
  if (target.connectors === undefined) return { checked };
  // An entry whose only change is a live key of the gateway's is not the connector's business.
  const indices = new Set(changed.filter((p) => !LIVE_ENTRY_KEY.test(p)).flatMap((p) => /^connectors\.(\d+)\./.exec(p)?.[1] ?? []).map(Number));
  for (const index of indices) {
    const before = target.settings.connectors[index];
    const after = next.connectors[index];
    if (before === undefined || after === undefined || before.name !== after.name || before.type !== after.type) continue;
    const result = target.connectors.check(after);
    if ('problems' in result) problems.push(...result.problems.map((p) => ({ path: `connectors[${index}]${p.path === '' ? '' : `.${p.path}`}`, message: p.message })));
    else checked.push({ index, name: after.name, config: result.config });
  }
  return problems.length > 0 ? { problems } : { checked };
}

/** Hands each checked entry to its connector; the settings paths it applied (only ones that changed), now in force. */
function applyConnectorEntries(target: ReloadTarget, next: Readonly<Settings>, checked: readonly CheckedEntry[], changed: readonly string[]): string[] {
  const applied: string[] = [];
  if (checked.length === 0 || target.connectors === undefined) return applied;
  const connectors = [...target.settings.connectors];
  for (const { index, name, config } of checked) {
    const prefix = `connectors.${index}.`;
    const keys = target.connectors.apply(name, config).filter((key) => changed.includes(prefix + key));
    if (keys.length === 0) continue;
    const entry = structuredClone(connectors[index]!) as Record<string, unknown>;
    for (const key of keys) setAt(entry, key, valueAt(next.connectors[index] as Record<string, unknown>, key));
    connectors[index] = entry as Settings['connectors'][number];
    applied.push(...keys.map((key) => prefix + key));
  }
  target.settings = { ...target.settings, connectors };
  return applied;
}

/** The changed live entry keys of entries still of the same name and type, now in force; the runner told. */
function applyLiveEntryKeys(target: ReloadTarget, next: Readonly<Settings>, changed: readonly string[]): string[] {
  const applied: string[] = [];
  const connectors = [...target.settings.connectors];
  for (const path of changed) {
    const [, index, key] = LIVE_ENTRY_KEY.exec(path) ?? [];
    const before = connectors[Number(index)];
    const after = next.connectors[Number(index)];
    if (key === undefined || before === undefined || after === undefined || before.name !== after.name || before.type !== after.type) continue;
    const entry = { ...before } as Record<string, unknown>;
    setAt(entry, key, valueAt(after as Record<string, unknown>, key));
    connectors[Number(index)] = entry as Settings['connectors'][number];
    applied.push(path);
  }
  if (applied.length === 0) return applied;
  target.settings = { ...target.settings, connectors };
  target.runner?.notify();
  return applied;
}

function valueAt(root: Record<string, unknown>, key: string): unknown {
  let at: unknown = root;
  for (const part of key.split('.')) at = isBranch(at) ? (at as Record<string, unknown>)[part] : undefined;
  return at;
}

function setAt(root: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let at = root;
  for (const part of parts.slice(0, -1)) {
    if (!isBranch(at[part])) at[part] = {};
    at = at[part] as Record<string, unknown>;
  }
  if (value === undefined) delete at[parts.at(-1)!];
  else at[parts.at(-1)!] = value;
}

/** The `health` section's changed paths, now in force, when the gateway judges failing deliveries. */
function applyHealth(target: ReloadTarget, next: Readonly<Settings>, changed: readonly string[]): string[] {
  const paths = changed.filter((p) => p.startsWith('health.'));
  if (paths.length === 0 || target.deliveryHealth === undefined) return [];
  target.deliveryHealth.rules = { failures: next.health.delivery_failures, failingForMs: next.health.delivery_failing_for };
  target.settings = { ...target.settings, health: next.health };
  return paths;
}
