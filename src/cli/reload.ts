/**
 * A reload of the settings file (SIGHUP to `serve`). The file is read and
 * checked as at start; a file with problems changes nothing (each problem is
 * logged). A changed `platform.token` or `platform.token_type` is applied to
 * the running platform client (the bridge's calls and the proxy's) and every
 * connector whose posts are paused is re-checked at once. Every other change
 * is named in the log as needing a restart. Values are never logged, only
 * the paths of what changed.
 */
import type { AuthPause } from '../bridge/auth-pause.ts';
import { ConfigInvalidError } from '../config/errors.ts';
import { loadSettings } from '../config/load.ts';
import type { Settings } from '../config/schema.ts';
import type { Logger } from '../logger.ts';
import type { PlatformHttpClient } from '../platform/http-client.ts';

const TOKEN_PATHS = ['platform.token', 'platform.token_type'];

export interface ReloadTarget {
  /** The settings file the gateway started from; null when it runs on defaults. */
  file: string | null;
  /** The settings in force: what a reload is compared with (updated by each reload). */
  settings: Readonly<Settings>;
  /** The embedded sandbox has its own token: platform.token is not used. */
  embedded: boolean;
  http: PlatformHttpClient;
  pause: AuthPause;
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

export function reloadSettings(target: ReloadTarget, logger: Logger): ReloadOutcome | undefined {
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
  const tokenChanged = !target.embedded && changed.some((p) => TOKEN_PATHS.includes(p));
  const applied = tokenChanged ? changed.filter((p) => TOKEN_PATHS.includes(p)) : [];
  const restartNeeded = changed.filter((p) => !applied.includes(p));
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
  logger.info(
    { event: 'settings_reloaded', file: target.file, applied, restart_needed: restartNeeded },
    applied.length > 0
      ? `SIGHUP: applied ${applied.join(', ')}${restartNeeded.length > 0 ? `; ${restartNeeded.join(', ')} need a restart` : ''}`
      : restartNeeded.length > 0
        ? `SIGHUP: nothing applied; ${restartNeeded.join(', ')} need a restart`
        : 'SIGHUP: the settings file is unchanged',
  );
  return { applied, restartNeeded };
}
